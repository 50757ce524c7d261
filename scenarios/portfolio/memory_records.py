"""What the portfolio agent writes to memory, what distillation finds there, and which rules apply.

Every entry carries the keys the query matches on (`task_type`, `regime`, and
`ticker` / `sector` where they apply), unlike the reference, whose portfolio
entries matched nothing (facts §1).

- Episodic: one entry per bar and ticker, written after the bar's outcome is
  known. It records each available tool's directional call at the bar, the
  ticker's realised next-bar direction (flat if |r| < 0.1 %, as the
  reference's return files), the weight held, and the agent-observable regime
  label (`return_regime` of the agent's own returns), never the synthetic
  market's true regime. Metadata kind "bar".
- Semantic: tool reliability per regime, per sector and pooled over sectors
  ("momentum right in 14 of 20 calls on Financial Services in bearish bars
  (0.70)"), from the recent episodic entries. Stable key
  `tool=…|sector=…|regime=…` and a direction, reliable or unreliable, so the
  engine corroborates it across slow windows and promotes it. Kind
  "tool_reliability".
- Procedural: the promoted pattern as a rule ("RULE: trust momentum on
  Financial Services when bearish"). It applies to bars whose regime label is
  the rule's; it held on a bar when the tool's calls on the rule's sector were
  mostly right (trust) or mostly wrong (shrink).

A call is right when it is non-zero and equals the realised direction; calls
of 0 and flat bars are not counted.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from engine.memory import MemoryEntry, MemoryStore, Pattern

TASK_TYPE = "portfolio_allocation"
FLAT = 0.001               # |next-bar return| below this is a flat bar (no direction)
DISTILL_BARS = 40          # distillation reads the episodic entries of the last 40 bars (10 days)
MIN_CALLS_SECTOR = 16      # decided calls a sector pattern needs
MIN_CALLS_POOLED = 40
MIN_EDGE = 0.10            # |accuracy - 0.5| a pattern needs, at least...
EDGE_SIGMAS = 2.0          # ...and this many binomial standard errors, so noise rarely qualifies
ALL_SECTORS = "all sectors"
ARROW = {1: "up", -1: "down", 0: "flat"}


def short(tool: str) -> str:
    """compute_momentum -> momentum (the readable name used in texts)."""
    return tool.split("_", 1)[1] if "_" in tool else tool


def direction_of(r: float) -> int:
    return 0 if abs(r) < FLAT else (1 if r > 0 else -1)


@dataclass(frozen=True)
class BarRecord:
    """One ticker at one bar, as written to the episodic tier."""

    bar: int
    when: str
    ticker: str
    sector: str
    regime: str
    calls: dict[str, int]     # tool -> +1/0/-1, the tools available for this ticker at the bar
    next_return: float
    weight: float

    def entry(self) -> tuple[str, dict[str, Any]]:
        """(content, metadata) of the episodic entry."""
        realised = direction_of(self.next_return)
        marks = []
        for tool, c in self.calls.items():
            verdict = "" if c == 0 or realised == 0 else (" ✓" if c == realised else " ✗")
            marks.append(f"{short(tool)} {ARROW[c]}{verdict}")
        content = (f"{self.ticker} {self.when} [{self.regime}]: {', '.join(marks)}; "
                   f"next bar {self.next_return:+.2%} ({ARROW[realised]}); held {self.weight:.1%}")
        meta = {"task_type": TASK_TYPE, "kind": "bar", "ticker": self.ticker, "sector": self.sector,
                "regime": self.regime, "bar": self.bar, "calls": dict(self.calls), "realised": realised,
                "next_return": round(self.next_return, 8), "weight": round(self.weight, 6)}
        return content, meta


def episodic_quality(score: float) -> float:
    """The reference's episodic quality max(0.3, min(1, (s + 1) / 2)) of the bar's outcome score."""
    return max(0.3, min(1.0, (score + 1.0) / 2.0))


# ----------------------------------------------------------------------------- distillation
def _tally(entries: Sequence[MemoryEntry]) -> dict[tuple[str, str, str], list[int]]:
    """(tool, sector, regime) -> [right, decided calls]; sector ALL_SECTORS pools the sectors."""
    counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for e in entries:
        m = e.metadata
        realised = m["realised"]
        if realised == 0:
            continue
        for tool, c in m["calls"].items():
            if c == 0:
                continue
            hit = int(c == realised)
            for sector in (m["sector"], ALL_SECTORS):
                cell = counts[(tool, sector, m["regime"])]
                cell[0] += hit
                cell[1] += 1
    return counts


def _significant(right: int, n: int, min_calls: int) -> bool:
    if n < min_calls:
        return False
    edge = abs(right / n - 0.5)
    return edge >= max(MIN_EDGE, EDGE_SIGMAS * 0.5 / np.sqrt(n))


def tool_pattern(tool: str, sector: str, regime: str, right: int, n: int) -> Pattern:
    acc = right / n
    reliable = acc > 0.5
    where = f"on {sector}" if sector != ALL_SECTORS else "on all sectors"
    verb = "trust" if reliable else "shrink"
    return Pattern(
        key=f"tool={tool}|sector={sector}|regime={regime}",
        content=f"{short(tool)} right in {right} of {n} calls {where} in {regime} bars ({acc:.2f})",
        direction="reliable" if reliable else "unreliable", support=n, strength=acc,
        rule=f"RULE: {verb} {short(tool)} {where} when {regime}",
        metadata={"task_type": TASK_TYPE, "kind": "tool_reliability", "tool": tool,
                  "sector": None if sector == ALL_SECTORS else sector, "regime": regime,
                  "right": right, "calls": n, "accuracy": round(acc, 4)},
    )


def distill(memory: MemoryStore, episode: int) -> list[Pattern]:
    """Tool-reliability patterns in the episodic entries of the last DISTILL_BARS bars.

    A pattern needs enough decided calls (16 for a sector, 40 pooled) and an
    accuracy at least 0.10 and two binomial standard errors away from 0.5.
    Sorted by key, so the output is deterministic.
    """
    tier = memory.tiers["episodic"].entries
    recent = [e for e in tier if e.episode > episode - DISTILL_BARS and e.metadata.get("kind") == "bar"]
    out = []
    for (tool, sector, regime), (right, n) in sorted(_tally(recent).items()):
        min_calls = MIN_CALLS_POOLED if sector == ALL_SECTORS else MIN_CALLS_SECTOR
        if _significant(right, n, min_calls):
            out.append(tool_pattern(tool, sector, regime, right, n))
    return out


# ----------------------------------------------------------------------------- rules
def is_tool_rule(entry: MemoryEntry) -> bool:
    return entry.metadata.get("kind") == "tool_reliability" and "tool" in entry.metadata


def applicable_rules(memory: MemoryStore, regime: str) -> list[MemoryEntry]:
    """The tool rules for bars with this regime label (they name tickers by sector, and
    every bar covers every sector of the universe)."""
    return [r for r in memory.tiers["procedural"].entries if is_tool_rule(r) and r.metadata["regime"] == regime]


def rule_verdict(rule: MemoryEntry, calls: np.ndarray, realised: np.ndarray, sectors: Sequence[str],
                 tools: Sequence[str]) -> bool | None:
    """Whether a tool rule's advice was right on one bar: of the tool's decided calls on
    the rule's sector (all tickers for a pooled rule), more than half right for a trust
    rule, fewer than half for a shrink rule. None with no decided call or a tie.

    `calls` is (n_tickers, n_tools) in `tools` order, `realised` (n_tickers,) directions.
    """
    m = rule.metadata
    if m["tool"] not in tools:
        return None
    c = calls[:, list(tools).index(m["tool"])]
    mask = (c != 0) & (realised != 0)
    if m.get("sector") is not None:
        mask &= np.array([s == m["sector"] for s in sectors])
    n = int(mask.sum())
    if n == 0:
        return None
    right = int((c[mask] == realised[mask]).sum())
    if 2 * right == n:
        return None
    return (2 * right > n) == (rule.metadata.get("direction") == "reliable")
