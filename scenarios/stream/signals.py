"""What the stream reflector reads in a window before it chooses what to replay: the four
triggers of its candidates besides the --meta columns (issue 39).

- new labels (→ a recency window): a label first seen in the last `NEW_HORIZON` rows has a
  row in the trailing window (not in the stream's first `NEW_HORIZON` rows, when every
  label is new);
- share shift (→ a recency window): the label counts of the trailing window differ from
  those of the `REPLAY_ROWS` rows before it by a chi-square test at p < `SHIFT_P`;
- neighbours disagree (→ prototypes): on the slow window's failures, the label most of the
  5 voters share holds on average less than `DISAGREE_SHARE` of them;
- starved label (→ class balance): a label is the truth of at least `STARVED_FAILURES`
  failures in the slow window and the vote never answered it over the trailing window.
The candidates themselves are `policies.trigger_candidates`.

A trigger only chooses what is replayed; whether anything is proposed is the replay's
evidence bar and chance control (reflector.py), the same for every candidate. Everything
here reads labels revealed by episode t (the row's label is stored once its episode is over)
and the history's records: a pure function of the context, nothing kept between windows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine.reflection_gate import is_correct

NEW_HORIZON = 200        # rows: a label first seen this recently is new to memory
SHIFT_P = 0.001          # the share-shift test's level
DISAGREE_SHARE = 0.6     # mean share of the voters behind their most common label, below which they disagree
STARVED_FAILURES = 3     # failures of one label in the slow window before it can be called starved


@dataclass(frozen=True)
class Trigger:
    kind: str   # "recency" | "prototypes" | "balance": which candidates it asks to replay
    name: str   # "new labels", "share shift", "neighbours disagree", "starved label"
    why: str    # one clause with the numbers ("3 labels new to memory (x, y, z) ...")


def first_seen(labels: tuple[str, ...] | list[str]) -> dict[str, int]:
    """Each label's first row (one pass; the world keeps it, the reflector asks)."""
    out: dict[str, int] = {}
    for i, label in enumerate(labels):
        out.setdefault(label, i)
    return out


def new_labels(labels, first: dict[str, int], t: int, window: int) -> list[str]:
    """Labels with a row in the trailing window that memory first saw within `NEW_HORIZON` rows
    of t, once memory is older than that horizon."""
    horizon_start = t - NEW_HORIZON + 1
    if horizon_start < NEW_HORIZON:
        return []
    recent = set(labels[max(0, t - window + 1):t + 1])
    return sorted(lab for lab in recent if first[lab] >= horizon_start)


def share_shift(labels, t: int, window: int, before: int) -> float | None:
    """The chi-square test's p-value that the trailing window's label counts come from the same
    shares as the `before` rows preceding it (None when either side is empty)."""
    from scipy.special import chdtrc  # the chi-square survival function (scipy.stats costs seconds to import)

    lo = max(0, t - window + 1)
    now, then = Counter(labels[lo:t + 1]), Counter(labels[max(0, lo - before):lo])
    if not now or not then or len(now | then) < 2:
        return None
    n_now, n_then = sum(now.values()), sum(then.values())
    total = n_now + n_then
    stat = 0.0
    for k in now | then:
        both = now[k] + then[k]
        for seen, n in ((now[k], n_now), (then[k], n_then)):
            expected = both * n / total
            stat += (seen - expected) ** 2 / expected
    return float(chdtrc(len(now | then) - 1, stat))


def agreement(records: list[dict[str, Any]], labels) -> float | None:
    """The mean, over `records` that voted, of the share of voters behind their most common label."""
    shares = []
    for r in records:
        voters = (r.get("info") or {}).get("voters") or []
        if voters:
            shares.append(Counter(labels[v] for v in voters).most_common(1)[0][1] / len(voters))
    return sum(shares) / len(shares) if shares else None


def starved(failures: list[dict[str, Any]], trailing: list[dict[str, Any]]) -> list[str]:
    """Labels behind at least `STARVED_FAILURES` of the failures that the vote never answered
    over the trailing records."""
    answered = {(r.get("info") or {}).get("predicted") for r in trailing}
    missed = Counter((r.get("info") or {}).get("label") for r in failures)
    return sorted(lab for lab, n in missed.items() if lab is not None and n >= STARVED_FAILURES
                  and lab not in answered)


def triggers(ctx, window: int, cadence: int, before: int) -> list[Trigger]:
    """The triggers that fire at ctx.episode, in the order their candidates are tried."""
    scenario, t = ctx.scenario, ctx.episode
    labels = scenario.labels
    out: list[Trigger] = []
    new = new_labels(labels, scenario.first_seen, t, window)
    if new:
        shown = ", ".join(new[:5]) + (f" and {len(new) - 5} more" if len(new) > 5 else "")
        out.append(Trigger("recency", "new labels", f"{len(new)} label{'s' if len(new) != 1 else ''} new to "
                                                     f"memory (first seen in the last {NEW_HORIZON} rows) among "
                                                     f"the last {window} rows ({shown})"))
    p = share_shift(labels, t, window, before)
    if p is not None and p < SHIFT_P:
        out.append(Trigger("recency", "share shift", f"the label shares of the last {window} rows differ from "
                                                     f"the {before} before them (chi-square p = {p:.1g})"))
    start = t - cadence + 1
    window_records = [r for r in ctx.history[-cadence:] if r["episode"] >= start]
    failures = [r for r in window_records if not is_correct(r)]
    share = agreement(failures, labels)
    if share is not None and share < DISAGREE_SHARE:
        out.append(Trigger("prototypes", "neighbours disagree",
                           f"on the {len(failures)} failures the voters' most common label holds only "
                           f"{share:.0%} of them"))
    hungry = starved(failures, [r for r in ctx.history[-window:] if r["episode"] > t - window])
    if hungry:
        out.append(Trigger("balance", "starved label",
                           f"{', '.join(hungry[:5])} {'is' if len(hungry) == 1 else 'are'} the truth of "
                           f"{STARVED_FAILURES}+ failures and never answered in the last {window} rows"))
    return out
