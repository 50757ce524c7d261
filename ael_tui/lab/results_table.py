"""The lab's results view, UI-free: this run's numbers beside baselines run on the same
world and seed, and the paper's row where it is comparable.

`compute_results(session)` runs the comparison selectors (each to the episode the
session has reached, approvals automatic, offline) and returns a `ResultsTable`:
- scenarios whose results are "regimes" (synthetic, support): mean reward (its
  `score_name`: accuracy on support) per true regime and
  overall, with the paper's published row under each selector it has one for;
- "phases" (portfolio): the metrics of the phase just ended (Sharpe, Sortino, Calmar, MaxDD,
  total return, win rate) beside the four non-learning baselines, and the paper's
  test rows only on its own data (D-full) and for the test phase.
It runs the engine, so the lab calls it from a worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ael_lab.runs import Session, run_result

PHASE_METRICS = (("sharpe", "Sharpe", "{:.2f}"), ("sortino", "Sortino", "{:.2f}"), ("calmar", "Calmar", "{:.2f}"),
                     ("max_drawdown_pct", "MaxDD %", "{:.2f}"), ("total_return_pct", "return %", "{:.2f}"),
                     ("win_rate", "win rate", "{:.2f}"))


@dataclass
class ResultsTable:
    title: str
    columns: list[str]
    rows: list[tuple[str, list[str], str]] = field(default_factory=list)  # (label, cells, kind: run/base/paper)
    notes: list[str] = field(default_factory=list)


def _offline_config(session: Session, selector: str):
    return replace(session.config, selector=selector, approval="auto", llm={}, reflector_options={})


def _fresh_scenario(session: Session):
    from ael_lab.worlds import make_scenario
    return make_scenario(session.config.scenario, session.config.seed, dict(session.config.scenario_options))


def _run(session: Session, selector: str) -> dict[str, Any]:
    """`selector` on the session's world and seed, to the episode the session has reached."""
    shared = session.scenario.spec.shareable
    other = Session(_offline_config(session, selector), session.scenario if shared else _fresh_scenario(session))
    other.run(until=session.t)
    return run_result(other)


def _num(x: Any, fmt: str = "{:.3f}") -> str:
    return "–" if x is None else fmt.format(x)


def compute_results(session: Session) -> ResultsTable:
    """This run so far beside the comparison runs (call with the session's lock held)."""
    if session.scenario.spec.results == "phases":
        return _by_phase(session)
    return _by_regime(session)


class KeptResults:
    """`compute_results`, kept for the state it was computed from: asking again at the same
    episode (f twice, or f after the end of a phase showed them) runs no comparison again.
    The state is the session object, its episode, its config, and the host's `version`
    (bumped by every step, decision and rewind). Call with the session's lock held."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._table: ResultsTable | None = None

    def __call__(self, session: Session, version: int) -> ResultsTable:
        key = (id(session), session.t, version, repr(session.config))
        if key != self._key or self._table is None:
            self._table, self._key = compute_results(session), key
        return self._table


def _by_regime(session: Session) -> ResultsTable:
    scenario, spec = session.scenario, session.scenario.spec
    regimes = list(scenario.regime_names)
    columns = [*regimes, spec.score_name, "injected at"]
    paper = getattr(scenario, "paper_table", spec.paper_table)  # a protocol of the world may have none
    complete = session.t >= session.n_episodes
    table = ResultsTable(f"{session.config.scenario}, seed {session.config.seed}: episodes 0–{session.t - 1}",
                         columns)

    def add(label: str, result: dict[str, Any], kind: str) -> None:
        injected = ", ".join(str(i["episode"]) for i in result["injections"]) or "–"
        table.rows.append((label, [*(_num(result["regimes"].get(g)) for g in regimes), _num(result["overall"]),
                                   injected], kind))
        ref = paper.get(result["selector"])
        if ref and complete:
            table.rows.append(("  paper", [*(_num(ref.get(g)) if g in ref else "" for g in regimes),
                                           _num(ref.get("overall")), str(ref.get("injected", ""))], "paper"))

    add(f"{session.config.selector} (this run)", run_result(session), "run")
    for selector in spec.compare_with:
        if selector != session.config.selector:
            add(selector, _run(session, selector), "base")
    if paper and not complete:
        table.notes.append("The paper's rows are for whole runs: they appear when the run is finished.")
    elif paper:
        table.notes.append("Dim rows: the paper's published values (means over 5 seeds; this is one seed).")
    table.notes.append("Comparison runs: the same stream and seed, offline, approvals automatic.")
    return table


def _by_phase(session: Session) -> ResultsTable:
    phase = _phase_just_ended(session)
    result = run_result(session)
    mine = result.get("phases", {}).get(phase, {})
    columns = [label for _, label, _ in PHASE_METRICS]
    spec = session.scenario.spec
    table = ResultsTable(f"{spec.name}, seed {session.config.seed}: the {phase} phase", columns)

    def cells(metrics: dict[str, Any]) -> list[str]:
        return [_num(metrics.get(k), fmt) for k, _, fmt in PHASE_METRICS]

    table.rows.append((f"{session.config.selector} (this run)", cells(mine), "run"))
    comparable = bool(result.get("paper_comparable")) and phase == "test"
    paper = spec.paper_test_table if comparable else {}
    if session.config.selector in paper:
        table.rows.append(("  paper", cells(paper[session.config.selector]), "paper"))
    for selector in spec.compare_with:
        if selector != session.config.selector:
            table.rows.append((selector, cells(_run(session, selector).get("phases", {}).get(phase, {})), "base"))
            if selector in paper:
                table.rows.append(("  paper", cells(paper[selector]), "paper"))
    scenario = _fresh_scenario(session)
    for name in spec.baselines:
        run = scenario.baseline_run(name)
        table.rows.append((f"baseline:{name}", cells(run.get("phases", {}).get(phase, {})), "base"))
        if f"baseline:{name}" in paper:
            table.rows.append(("  paper", cells(paper[f"baseline:{name}"]), "paper"))
    table.notes.append("Baselines: fully invested, rebalanced every bar, the same market (the reference's convention, "
                       "each phase's first bar dropped).")
    if not comparable:
        table.notes.append("The paper's rows appear for the test phase on its own data (--data ../shared/data/dfull).")
    return table


def _phase_just_ended(session: Session) -> str:
    """The phase the last episode belongs to (the one a run to the end of a phase finished)."""
    return session.phase_of(max(session.t - 1, 0)).replace("warmup", "train")
