"""Session state turned into what the panels show: plain data, no widgets.

Everything here reads a session (under the host's lock) and returns rows,
series and texts, so the panels stay thin and the same numbers can be tested
without a terminal. Where the engine has no answer yet (an LLM ledger), the
read is defensive.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ael_lab import AELError
from ael_lab.registries import loaded_plugins_line
from ael_lab.review import Proposal
from ael_lab.runs import Session
from ael_lab.store import read_document
from ael_lab.text import shown

from ael_lab.drawing import metric_name  # noqa: F401 - the progress data names its metric by it


# ------------------------------------------------------------------ status
def regime_name(session: Session, regime: Any) -> str | None:
    """A history record's regime index as the scenario names it (None stays None)."""
    if regime is None:
        return None
    names = session.scenario.regime_names
    return names[regime] if isinstance(regime, int) and 0 <= regime < len(names) else str(regime)


def true_regime(session: Session) -> str | None:
    """The scenario's true regime of the current (or last) episode, if it knows it."""
    if session.n_episodes <= 0:
        return None
    t = min(session.t, session.n_episodes - 1)
    return regime_name(session, session.scenario.regime(t))


def regime_belief(session: Session) -> tuple[str, float] | None:
    """The reflector's regime label and confidence: the applied insight's, else the last reflection's."""
    if session.insight and session.insight.get("regime_label"):
        return session.insight["regime_label"], float(session.insight.get("confidence", 0.0))
    if session.reflections:
        r = session.reflections[-1]
        if r.regime_label:
            return r.regime_label, float(r.confidence)
    return None


def backend_and_cost(session: Session) -> tuple[str, float]:
    """(who plays agent and reflector, LLM cost in USD so far); LLM calls that were
    answered offline (the fallback policy) are counted where the backend is named."""
    totals = session.usage.totals()
    backend = session.backend
    if totals.fallbacks:
        backend += f" ⚠ {totals.fallbacks} fallback{'s' if totals.fallbacks != 1 else ''}"
    return backend, float(totals.cost_usd)


@dataclass
class Status:
    scenario: str
    seed: int
    t: int
    n: int
    phase: str
    frozen: bool
    regime: str | None
    belief: tuple[str, float] | None
    selector: str
    approval: str
    standing: dict[str, str]
    pending: int
    backend: str
    cost: float
    done: bool
    plugins: str = ""  # "plugins: NAME VERSION, ..." when any ran in the engine (engine/plugins.py)


def status_of(session: Session) -> Status:
    c = session.config
    backend, cost = backend_and_cost(session)
    regime, belief = true_regime(session), regime_belief(session)  # a file's regime, a model's label: shown
    return Status(
        scenario=c.scenario, seed=c.seed, t=session.t, n=session.n_episodes, phase=session.phase,
        frozen=session.frozen, regime=None if regime is None else shown(regime),
        belief=None if belief is None else (shown(belief[0]), belief[1]),
        selector=shown(c.selector + (f" · variant {session.variants.text}" if session.variants else "")),
        approval=session.queue.mode, standing=dict(session.queue.standing),
        pending=len(session.queue.pending), backend=backend, cost=cost, done=session.done,
        plugins=loaded_plugins_line(),
    )


# -------------------------------------------------------------- posteriors
@dataclass
class ArmRow:
    name: str
    alpha: float
    beta: float
    mean: float
    low: float
    high: float
    pulls: int
    last_sample: float | None
    chosen: bool
    added_at: int
    injected: bool


def chosen_arm(session: Session) -> str | None:
    return session.history[-1]["policy"] if session.history else None


def posterior_rows(session: Session) -> list[ArmRow]:
    chosen = chosen_arm(session)
    injected = {i["arm"] for i in session.injections}
    rows = []
    for a in session.selector.arms:
        lo, hi = a.interval(0.9)
        rows.append(ArmRow(a.name, a.alpha, a.beta, a.mean, lo, hi, a.pulls, session.selector.last_draws.get(a.name),
                           a.name == chosen, a.added_at, a.name in injected))
    return rows


def beta_pdf(x: np.ndarray, a: float, b: float) -> np.ndarray:
    """Beta(a, b) density on x in (0, 1), computed in logs (no scipy)."""
    log_norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    return np.exp(log_norm + (a - 1) * np.log(x) + (b - 1) * np.log1p(-x))


def density_grid(points: int) -> np.ndarray:
    points = max(points, 8)
    return (np.arange(points) + 0.5) / points


# ------------------------------------------------------------------ memory
TIERS = ("episodic", "semantic", "procedural")


@dataclass
class MemoryRow:
    id: str
    content: str
    quality: float
    age: int
    retrievals: int
    usefulness: float
    hit: bool


class MemoryRows(Sequence[MemoryRow]):
    """A tier's entries as the memory table shows them, newest first. The values are read
    (under the host's lock) as plain tuples, and a `MemoryRow` is made only when a row is
    looked at: the table draws a screenful, and a row object per entry of a 1,200-entry
    tier was a tenth of a step's frame."""

    __slots__ = ("_values", "_now", "_hits")

    def __init__(self, values: list[tuple], now: int, hits: set[str]) -> None:
        self._values, self._now, self._hits = values, now, hits

    def __len__(self) -> int:
        return len(self._values)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(len(self._values)))]
        id_, content, quality, episode, retrievals, usefulness = self._values[index]
        return MemoryRow(id_, content, quality, max(0, self._now - 1 - episode), retrievals, usefulness,
                         id_ in self._hits)


def memory_rows(session: Session, tier: str, needle: str = "") -> MemoryRows:
    """Entries of a tier, newest first, those matching `needle` (content or metadata)."""
    needle = needle.strip().lower()
    entries = reversed(session.memory.tiers[tier].entries)
    if needle:
        entries = (e for e in entries if needle in e.content.lower() or needle in e.id.lower()
                   or needle in str(e.metadata).lower())
    values = [(e.id, e.content, e.quality, e.episode, e.retrieval_count, e.avg_usefulness) for e in entries]
    return MemoryRows(values, session.t, set(session.last_hits))


def memory_entry(session: Session, tier: str, entry_id: str):
    for e in session.memory.tiers[tier].entries:
        if e.id == entry_id:
            return e
    return None


# --------------------------------------------------------------- progress
def rolling(values: np.ndarray, window: int) -> np.ndarray:
    """Trailing mean over up to `window` values (shorter at the start)."""
    if len(values) == 0:
        return values
    c = np.cumsum(np.insert(values.astype(float), 0, 0.0))
    idx = np.arange(1, len(values) + 1)
    lo = np.maximum(idx - window, 0)
    return (c[idx] - c[lo]) / (idx - lo)


def downsample(xs: np.ndarray, ys: np.ndarray, points: int) -> tuple[np.ndarray, np.ndarray]:
    """About one point per plot column."""
    if len(xs) <= points or points < 2:
        return xs, ys
    idx = np.unique(np.linspace(0, len(xs) - 1, points).round().astype(int))
    return xs[idx], ys[idx]


@dataclass
class ProgressData:
    kind: str                          # reward, accuracy, equity
    window: int
    x: np.ndarray
    y: np.ndarray
    y2: np.ndarray | None              # drawdown for equity
    regime_starts: list[tuple[int, str]]
    phase_starts: list[tuple[int, str]]
    reflections: list[int]
    injections: list[tuple[int, str]]
    n: int


def progress_data(session: Session) -> ProgressData:
    # one copy, read once: x and y must count the same episodes even if a step lands
    # while this runs (a served lab's exit drew a 3-point x against a 4-point y)
    h = list(session.history)
    window = max(20, session.slow_window)
    x = np.arange(len(h))
    # (a portfolio's records carry a return; looked for in the last one before reading them all)
    returns = [r.get("info", {}).get("port_return") for r in h] \
        if h and isinstance(h[-1].get("info", {}).get("port_return"), (int, float)) else []
    y2 = None
    if returns and all(isinstance(v, (int, float)) for v in returns):
        equity = np.cumprod(1.0 + np.asarray(returns, dtype=float))
        peak = np.maximum.accumulate(equity)
        kind, y, y2 = "equity", equity, equity / peak - 1.0
    else:
        kind = metric_name(session)
        col = [float(bool(r["correct"])) if kind == "accuracy" else float(r["reward"]) for r in h]
        y = rolling(np.asarray(col, dtype=float), window)
    regime_starts = []
    prev = object()
    for r in h:
        reg = r.get("regime")
        if reg != prev and reg is not None:
            regime_starts.append((r["episode"], shown(regime_name(session, reg))))
        prev = reg
    phase_starts = [(end, name) for name, end in session.phase_ends.items()
                    if 0 < end < session.n_episodes and name != "test"]
    # a phase's end is the next phase's start
    phase_starts = [(end, _next_phase(name)) for end, name in phase_starts]
    return ProgressData(kind, window, x, y, y2, regime_starts, phase_starts,
                        [r.episode for r in session.reflections],
                        [(i["episode"], i["arm"]) for i in session.injections], session.n_episodes)


def _next_phase(name: str) -> str:
    order = ("warmup", "train", "val", "test")
    return order[min(order.index(name) + 1, len(order) - 1)]


# -------------------------------------------------------------- proposals
def window_stats(session: Session, proposal: Proposal) -> dict[str, Any]:
    """The numbers of the slow window a proposal came from: overall and per policy."""
    end = proposal.episode + 1
    start = max(0, end - session.slow_window)
    window = [r for r in session.history[start:end]]
    per: dict[str, list[float]] = {}
    for r in window:
        per.setdefault(r["policy"], []).append(float(r["reward"]))
    correct = [r["correct"] for r in window if r.get("correct") is not None]
    posterior = {a.name: a.mean for a in session.selector.arms}
    return {
        "episodes": (start, end - 1),
        "n": len(window),
        "mean_reward": (sum(float(r["reward"]) for r in window) / len(window)) if window else 0.0,
        "accuracy": (sum(bool(c) for c in correct) / len(correct)) if correct else None,
        "per_policy": [
            {"policy": p, "pulls": len(v), "mean": sum(v) / len(v), "posterior": posterior.get(p)}
            for p, v in sorted(per.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        ],
    }


def evidence_episodes(session: Session, evidence: dict[str, Any], limit: int = 12) -> list[dict[str, Any]]:
    """The history records of episodes a proposal's evidence names (lists of episode
    numbers under keys mentioning 'episodes'), e.g. the failures a new policy would have fixed."""
    wanted: list[int] = []
    for key, value in evidence.items():
        if "episode" in key and isinstance(value, list) and all(isinstance(v, int) for v in value):
            wanted.extend(v for v in value if v not in wanted)
    h = session.history
    return [h[e] for e in wanted[:limit] if 0 <= e < len(h)]


# ------------------------------------------------------------------ saves
@dataclass
class SaveInfo:
    path: Path
    scenario: str
    seed: int | None
    episode: int | None
    phase: str
    saved_at: str
    selector: str
    problem: str = ""


def read_save_info(path: Path) -> SaveInfo:
    """What the saves list shows, read from the document without building the session."""
    try:
        doc = read_document(path)
        s = doc["session"]
        cfg = s.get("config", {})
        history = s.get("history") or []
        t = int(s.get("t", len(history)))
        phase = history[-1].get("phase", "?") if history else "start"
        return SaveInfo(path, str(cfg.get("scenario", "?")), cfg.get("seed"), t, phase,
                        format_saved_at(doc.get("saved_at", "")), str(cfg.get("selector", "")))
    except AELError as err:
        return SaveInfo(path, "?", None, None, "", "", "", problem=str(err))
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        return SaveInfo(path, "?", None, None, "", "", "", problem=f"damaged ({err})")


def format_saved_at(iso: str) -> str:
    """'2026-11-22T14:50:33+00:00' -> '2026-11-22 14:50 UTC'."""
    if not iso or "T" not in iso:
        return iso
    day, time = iso.split("T", 1)
    return f"{day} {time[:5]}" + (" UTC" if iso.endswith("+00:00") else "")


def list_saves(folder: Path) -> list[SaveInfo]:
    """Every *.json in `folder`, newest file first."""
    if not folder.is_dir():
        return []
    files = sorted((p for p in folder.glob("*.json") if p.is_file()),
                   key=lambda p: (-p.stat().st_mtime, p.name))
    return [read_save_info(p) for p in files]


def cut_at_word(text: str, width: int) -> str:
    """`text` in at most `width` characters: whole, or cut after a word with "…" (a cut in
    the middle of a word with nothing to say so read as the whole insight)."""
    if len(text) <= width:
        return text
    head = text[: width - 1]
    if " " in head and not text[width - 1].isspace():
        head = head[: head.rfind(" ")]
    return head.rstrip(" ,;:") + "…"


def proposal_notes(session: Session) -> dict[int, list[str]]:
    """Reflection index -> one line per proposal it made: what, and what became of it."""
    by_proposal: dict[int, str] = {}
    for a in session.queue.audit:
        by_proposal[a.proposal_id] = f"{a.decision} by {a.who}" + (f" ({a.reason})" if a.reason else "")
    notes: dict[int, list[str]] = {}
    for p in session.queue.proposals:
        what = (f"policy {p.payload.get('name', '?')}" if p.kind == "arm"
                else f"insight: {cut_at_word(str(p.payload.get('insight', '')), 60)}")
        fate = by_proposal.get(p.id, "pending")
        notes.setdefault(p.reflection, []).append(f"proposal #{p.id}, {what}: {fate}")
    return notes


# ----------------------------------------------------------------- compare
@dataclass
class SelectorSummary:
    name: str
    kind: str                 # accuracy, reward or equity
    overall: float | None     # mean accuracy/reward over the run so far (final equity for equity)
    recent: float | None      # the rolling value at the last episode
    reflections: int
    arms_added: list[str]
    insight: bool


def selector_summary(name: str, session: Session, data: ProgressData | None = None) -> SelectorSummary:
    d = data if data is not None else progress_data(session)
    h = session.history
    overall = recent = None
    if h:
        recent = float(d.y[-1])
        if d.kind == "equity":
            overall = float(d.y[-1])
        elif d.kind == "accuracy":
            overall = sum(bool(r["correct"]) for r in h) / len(h)
        else:
            overall = sum(float(r["reward"]) for r in h) / len(h)
    return SelectorSummary(name, d.kind, overall, recent, len(session.reflections),
                           [i["arm"] for i in session.injections], session.insight is not None)


def compare_status(sessions: dict[str, Session]) -> Status:
    """The status of the comparison: the lead session's, at the furthest episode."""
    lead = next(iter(sessions.values()))
    status = status_of(lead)
    status.t = max(s.t for s in sessions.values())
    status.done = all(s.done for s in sessions.values())
    status.selector = " vs ".join(sessions)
    status.pending = 0
    return status
