"""What the lab's variant panels show, as each variant returns it from `panel_view(session)`:
plain data, as a prior method's `memory_view()` returns its tables (engine/prior/base.py).

The lab draws these and reads nothing else of a variant, so a variant's fields can
change without a lab edit, and a new variant's panel is its `panel_view`, one widget
and one registry line (ael_tui/lab/panels.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


def variant_view(name: str) -> Callable[[Any], Any]:
    """A panel's data function: the `panel_view` of the session's variant `name`, None
    when the session does not run it (called under the lab host's lock: it only reads)."""

    def view(session: Any) -> Any:
        variant = session.variants.get(name)
        return None if variant is None else variant.panel_view(session)

    view.__name__ = view.__qualname__ = f"{name.replace('-', '_')}_view"
    return view


# ------------------------------------------------------------------ planners (LinUCB)
@dataclass
class PlannerRow:
    name: str
    rule: str             # the planner rule it plays (an evolved arm names its library rule)
    pulls: int
    theta: list[float]    # learned reward (centred) per context feature
    estimate: float       # theta . x at the last context
    width: float          # sqrt(x' A^-1 x): the uncertainty there
    score: float | None   # what LinUCB scored it at (None in warm-up)
    chosen: bool
    added_at: int
    reason: str


@dataclass
class PlannerView:
    features: tuple[str, ...]
    short: tuple[str, ...]    # the features' column headers
    context: list[float]
    alpha: float          # the exploration weight now (after its decay)
    rows: list[PlannerRow]


# ------------------------------------------------------------------ tools (per-tool, cold-start)
@dataclass
class ToolPosterior:
    """Per-tool's Thompson sampling over one tool."""

    alpha: float | None   # its Beta (None before the first step set the tools up)
    beta: float | None
    pulls: int
    sample: float | None  # the last draw (None in warm-up)
    shown: bool           # fed the agent in the last episode


@dataclass
class ToolPrior:
    """Cold start's rating of one tool and the pseudo-calls it becomes."""

    rating: int
    prior: tuple[int, int]   # (right, wrong) pseudo-calls


@dataclass
class ToolRow:
    """One row of the tools panel: per-tool's posterior and cold start's prior side by side."""

    name: str
    alpha: float | None   # per-tool's Beta (None without per-tool)
    beta: float | None
    pulls: int
    sample: float | None  # the last draw
    shown: bool           # fed the agent in the last episode
    prior: tuple[int, int] | None   # cold-start's (right, wrong) pseudo-calls
    rating: int | None


def tool_rows(posteriors: dict[str, ToolPosterior] | None, priors: dict[str, ToolPrior] | None) -> list[ToolRow]:
    """The tools panel's rows from per-tool's and cold start's views (None: the variant is
    not running): per-tool's tools once it has set them up, else cold start's; without
    per-tool every tool counts as shown."""
    names = list(posteriors or {}) or list(priors or {})
    none = ToolPosterior(None, None, 0, None, posteriors is None)
    rows = []
    for n in names:
        post = (posteriors or {}).get(n, none)
        prior = (priors or {}).get(n)
        rows.append(ToolRow(n, post.alpha, post.beta, post.pulls, post.sample, post.shown,
                            prior.prior if prior else None, prior.rating if prior else None))
    return rows


# ------------------------------------------------------------------ skills
@dataclass
class SkillRow:
    kind: str             # playbook | tool
    text: str
    uses: int
    success: float | None  # share of uses whose episode scored above 0 (None: never used)
    open: bool            # passes the gate (would be used on a match)
    used_now: bool        # shaped the last episode
    created_at: int


@dataclass
class SkillsView:
    rows: list[SkillRow]
    pruned: list[str]     # "key at episode (successes/uses)", newest last


# ------------------------------------------------------------------ credit
@dataclass
class CreditView:
    mode: str
    episode: int                                   # the bar last credited (-1: none yet)
    source: str
    parts: dict[str, dict[str, float]]             # module -> part -> value, of that bar
    means: dict[str, float]                        # module -> mean combined credit so far
    values: dict[str, float] = field(default_factory=dict)   # coalition -> outcome score
    n: int = 0
    fallbacks: int = 0
