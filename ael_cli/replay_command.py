"""`ael-lab replay SAVE [SAVE ...]`: the paper's bandit replay table (tab:bandit_replay).

Each save is one seed's trace; several saves of one scenario (the paper's five
seeds) give mean ± sd over seeds. Saves are untrusted: each goes through the
session loader's checks (`read_document`) before anything reads it.
"""

from __future__ import annotations

import argparse
from typing import Any

from ael_lab import AELError
from ael_lab.replay import DEFAULT_RUNS, ORACLE, SeedResult, check_selectors, mean_sd, replay_trace, trace_of
from ael_lab.selectors import parse_method, split_methods
from ael_lab.text import shown_lines

DEFAULT_SELECTORS = "rr,egreedy,ucb1,oracle"
# tab:bandit_replay of the paper (portfolio, D-full train phase, 5 seeds): mean, sd, note
PAPER = {
    "rr": (0.490, 0.013, "Equal play of all arms"),
    "egreedy": (0.516, 0.020, "Exploit then explore"),
    "ucb1": (0.494, 0.011, "Optimism under uncertainty"),
    "ts": (0.490, 0.011, "Posterior sampling"),
    "none": (0.451, 0.011, "Disable memory"),
    "full_detailed": (0.463, 0.054, "Retrieve everything"),
    "aggressive_learner": (0.482, 0.046, "Permissive multi-tier"),
    "recent_window": (0.514, 0.031, "Sliding window"),
    "compressed": (0.523, 0.040, "Ranked, truncated abstracts"),
    ORACLE: (0.547, 0.025, "Upper bound for fixed-policy choice"),
}
LABELS = {"rr": "Round-robin", "egreedy": "ε-greedy", "ucb1": "UCB1", "ts": "Thompson sampling"}


def add_parser(sub) -> None:
    rp = sub.add_parser("replay", help="the paper's bandit replay on saved runs' training rewards")
    rp.add_argument("saves", nargs="+", metavar="SAVE", help="saved sessions, one per seed, of one scenario")
    rp.add_argument("--selector", default=DEFAULT_SELECTORS,
                    help=f"bandits to replay, a comma list of rr, egreedy, ucb1, ts and oracle "
                         f"(default {DEFAULT_SELECTORS})")
    rp.add_argument("--runs", type=int, default=DEFAULT_RUNS,
                    help=f"simulation runs per save (default {DEFAULT_RUNS}, as the paper)")


def replay_command(args: argparse.Namespace) -> int:
    # the save loader brings pydantic: only this command pays for it, not every
    # command whose parser lists `replay` (tests/process/test_cli_imports.py)
    from ael_lab.store import read_document

    try:
        selectors = split_methods(args.selector)
    except AELError as err:
        raise AELError(f"--selector: {err}") from None
    if not selectors:
        raise AELError("--selector: give at least one selector")
    check_selectors(selectors)
    if not 1 <= args.runs <= 10_000:
        raise AELError("--runs: give a number of runs from 1 to 10000")
    traces, scenario, agents = [], None, set()
    for path in args.saves:
        session = read_document(path)["session"]
        if scenario is not None and session["config"]["scenario"] != scenario:
            raise AELError(f"{path} is a {session['config']['scenario']} session; the others are {scenario}")
        scenario = session["config"]["scenario"]
        traces.append(trace_of(session, path))
        agents.add(_agent(session["config"].get("llm") or {}))
    results = [replay_trace(t, selectors, args.runs) for t in traces]
    # the policies' names and descriptions a model may have written: shown, never obeyed
    print(shown_lines(render(results, traces, selectors, args.runs, scenario == "portfolio", sorted(agents))))
    return 0


def _agent(llm: dict[str, Any]) -> str:
    """Who played the agent of a saved run: "offline" or the model's provider and name."""
    backend = llm.get("agent") or llm.get("provider") or "offline"
    if backend == "offline":
        return "offline"
    model = llm.get("agent_model") or llm.get("model") or ""
    return f"{backend} {model}".strip()


PAPER_MADE_WITH = ("The paper's column is its LLM agent's training trace (Claude Haiku 4.5, 5 seeds on D-full); "
                   "the rows beside it replay {ours}: a comparison of the replay, not of the same agent.")


def _cell(values: list[float]) -> str:
    mean, sd = mean_sd(values)
    return f"{mean:.3f}" + (f" ± {sd:.3f}" if sd is not None else "")


def _paper(key: str, show: bool) -> str:
    if not show or key not in PAPER:
        return ""
    mean, sd, _ = PAPER[key]
    return f"{mean:.3f} ± {sd:.3f}"


def _label(name: str) -> str:
    method = parse_method(name)
    label = LABELS.get(method.name, method.name)
    given = [f"{k}={v}" for k, v in method.settings.items()]
    return label + (f" ({', '.join(given)})" if given else "")


def render(results: list[SeedResult], traces: list[Any], selectors: list[str], runs: int,
           with_paper: bool, agents: list[str] | None = None) -> str:
    """The table in the paper's layout: simulated bandits, the run's own selector as realised,
    each single fixed policy, the oracle; a paper column for the portfolio."""
    n = len(results)
    spread = "± sd over seeds" if n > 1 else f"± sd over the {runs} runs (one seed)"
    rows: list[tuple[str, str, str, str]] = []
    for name in selectors:
        if name == ORACLE:
            continue
        per_seed = [sum(r.simulated[name]) / runs for r in results]
        values = per_seed if n > 1 else results[0].simulated[name]
        method = parse_method(name)
        base = method.name
        paper = _paper(base, with_paper and method.text == base)  # the paper's rows use the default options
        rows.append((_label(name), _cell(values), paper, PAPER.get(base, ("", "", ""))[2]))
    own = sorted({t.selector for t in traces})
    rows.append((f"{', '.join(own)} (the run itself, realised)", _cell([r.realised for r in results]),
                 _paper("ts", with_paper and own == ["ts+reflection"]), "mean reward on initial-arm episodes"))
    rows.append(("— single fixed policy (no bandit) —", "", "", ""))
    arms = list(dict.fromkeys(a for t in traces for a in t.arms))
    for arm in arms:
        values = [r.policy_means[arm] for r in results if arm in r.policy_means]
        pulls = sum(len(t.bags.get(arm, [])) for t in traces)
        rows.append((f"  {arm}", _cell(values), _paper(arm, with_paper),
                     f"{PAPER[arm][2] + '; ' if arm in PAPER else ''}{pulls} episodes"))
    if ORACLE in selectors:
        best = ", ".join(f"{r.seed}: {r.oracle_policy}" for r in results)
        rows.append(("Oracle (per-seed hindsight best)", _cell([r.oracle for r in results]),
                     _paper(ORACLE, with_paper), f"best policy by seed: {best}"))
    head = ("Strategy", f"Train reward ({n} seed{'s' if n > 1 else ''})", "paper" if with_paper else "", "Notes")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    lines = [f"Counterfactual bandit replay: {runs} runs per seed over the training phase "
             f"({', '.join(f'{t.horizon} episodes' for t in traces[:1])}{' each' if n > 1 else ''}); "
             f"rewards drawn from each policy's bag; {spread}"]
    if with_paper:
        ours = ", ".join(agents or ["offline"])
        lines.append(PAPER_MADE_WITH.format(ours="the offline heuristic agent's runs" if ours == "offline"
                                            else f"runs whose agent was {ours}"))
    if any(t.credited for t in traces):
        lines.append("The run's own bandit learnt from a credited reward (credit=...); the bags and every row "
                     "here hold the outcome reward.")
    for row in [head, *rows]:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if row is head:
            lines.append("  ".join("-" * w for w in widths if w))
    return "\n".join(lines)
