"""The report's words for the prior methods: rows marked offline or LLM, and the support confound.

The paper's rows for the prior methods are LLM runs (Claude Haiku 4.5 on the
portfolio; on support only in its LLM protocol, tab:cliapi_llm_text, whose
rows the reproduce report compares with that protocol's runs); ours are
offline unless a model played the agent or the critic, so each row says which it is. On the
support stream a method whose memory is keyed on the endpoint can learn the
regime-3 rule (the endpoint alone tells the route) without any reflection: a
confound the paper does not discuss, flagged under the table where a prior
method beats TS on R3 by more than `CONFOUND_MARGIN`. The note says whose TS it
compares with (this run's, or the paper's when TS did not run) and stands alone:
it names no document a user of the command does not have.
"""

from __future__ import annotations

from typing import Any

from ael_lab import AELError
from ael_lab.selectors import is_prior, parse_method

CONFOUND_MARGIN = 0.10
R3 = "R3"


def _is_prior(selector: str) -> bool:
    try:
        return is_prior(parse_method(selector))
    except AELError:  # a baseline: not a method
        return False


def row_label(selector: str, document: dict[str, Any]) -> str:
    """`reflexion (offline)`, `expel (LLM)`; other selectors as they are."""
    if not _is_prior(selector):
        return selector
    runs = [r for r in document["runs"] if r["selector"] == selector]
    return f"{selector} ({'LLM' if any('llm' in r for r in runs) else 'offline'})"


def paper_label(selector: str, models: dict[str, str] | None = None) -> str:
    """The paper's dim row's name: `paper (LLM)` where an LLM agent made it (a prior method, or
    a row the spec names a model for: the caption names it, `model_caption`), else `paper`."""
    return "  paper (LLM)" if selector in (models or {}) or _is_prior(selector) else "  paper"


def model_caption(document: dict[str, Any], models: dict[str, str], shown: list[str]) -> str:
    """The caption's words for the paper's LLM rows shown beside runs of ours made offline
    ("" when none is)."""
    offline = [s for s in shown if s in models
               and not any("llm" in r for r in document["runs"] if r["selector"] == s)]
    if not offline:
        return ""
    named = " and ".join(sorted({models[s] for s in offline}))
    return (f"; paper (LLM): runs of the paper's LLM agent ({named}); ours beside them ({', '.join(offline)}) "
            "are the offline heuristic agent's")


def confound_notes(summary: list[dict[str, Any]], paper: dict[str, Any]) -> list[str]:
    """One line per prior method whose R3 accuracy beats TS's (this run's, else the paper's) by
    more than the margin, or whose memory is keyed on the endpoint."""
    ran = next((row["regimes"].get(R3) for row in summary if row["selector"] == "ts"), None)
    ts = ran if ran is not None else paper.get("ts", {}).get(R3)
    out = []
    for row in summary:
        r3 = row["regimes"].get(R3)
        if r3 is None or not _is_prior(row["selector"]):
            continue
        method = parse_method(row["selector"])
        learned = ts is not None and r3 > ts + CONFOUND_MARGIN
        if learned or method.endpoint_keyed:
            beside = ("" if ts is None else f" against TS's {ts:.3f} in this run" if ran is not None
                      else f" against the paper's TS, {ts:.3f} (TS did not run here; add ts to --selectors)")
            what = ("its endpoint-keyed memory learned the regime-3 endpoint→route rule without reflection"
                    if learned else "its memory is keyed on the endpoint, so it could learn the regime-3 "
                    "endpoint→route rule without reflection (here it did not)")
            out.append(f"{row['selector']}: R3 {r3:.3f}{beside}: {what} (a confound the paper does not discuss)")
    return out
