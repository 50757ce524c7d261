"""The Markdown report of `ael-lab reproduce`: per table, the paper's numbers beside ours,
the difference, the statistics where the paper has them, a status per row, and a chart."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from ael_lab.store import write_text_atomic
from ael_lab.text import shown

from .evaluate import NOT_HERE, NOT_RESOLVED, NOT_RUN, REPRODUCED, STATUSES, Outcome, comparisons
from .model import NEEDS_MODEL, PaperTable
from .patterns import pattern_lines
from .run import table_seeds
from .svg import chart

RULE = ("A metric is **reproduced within tolerance** only when |ours − paper| is within the table's stated "
        "tolerance; where the paper gives an sd (over its 5 seeds) and we have two seeds or more, its reason says "
        "whether two one-sided Welch tests (TOST) show the two equivalent within ±tolerance (\"equivalent within "
        "±0.03 (TOST p=…)\") or not at this many seeds. Beyond the tolerance a metric **differs** when Welch's "
        "test on the paper's mean ± sd and our seeds resolves the difference (p < 0.05), or when the paper gives no "
        "sd; when the test cannot resolve it the metric is **not resolved at n = 5** (our seed count), with the "
        "95% interval of the difference, and never counted as reproduced (`--seeds N` runs the cheap tables on "
        "more seeds). A row takes its worst metric's status. Our columns are means over the seeds; the interval "
        "is a 95% percentile bootstrap of that mean; t, p and F p are ours, of the table's reference row against "
        "each row on the first metric (two-sided, as the paper's tab:stats).")


def _num(v: float | None, digits: int = 3) -> str:
    if v is None:
        return "–"
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.{digits}f}"  # episodes are whole numbers


def _p(v: float | None) -> str:
    return "–" if v is None else ("<0.001" if v < 0.001 else f"{v:.3f}")


def _cell(paper: float | None, ours: float | None, sd: float | None) -> str:
    text = f"{_num(paper)} → {_num(ours)}"
    whole = max(abs(paper or 0), abs(ours or 0)) >= 100  # an episode number: no decimals
    if sd is not None:
        text += f" ±{sd:.0f}" if whole else f" ±{sd:.3f}"
    if paper is not None and ours is not None:
        text += f" ({ours - paper:+.0f})" if whole else f" ({ours - paper:+.3f})"
    return text


def _seeds_text(seeds: list[int], paper: tuple[int, ...]) -> str:
    if len(seeds) <= len(paper):
        return f"seeds {', '.join(map(str, seeds))}"
    extra = seeds[len(paper):]
    more = str(extra[0]) if len(extra) == 1 else f"{extra[0]}–{extra[-1]} (skipping those)"
    return f"{len(seeds)} seeds: {', '.join(map(str, paper))} and {more}"


def table_markdown(table: PaperTable, outcomes: list[Outcome], svg_name: str | None,
                   seeds: list[int] | None = None, agent: str = "offline") -> str:
    lines = [f"## {table.title} (`{table.label}`)", ""]
    if table.reason:
        return "\n".join(lines + [f"**{NOT_HERE}**: {table.reason}.", ""])
    if table.unavailable(agent):
        return "\n".join(lines + [f"**{table.unavailable(agent)}.**", ""])
    # a world option the table sets (beside its data) changes what a row means: say it
    chosen = [f"`{k}={v}`" for k, v in table.options.items() if k != "data"]
    lines += [f"Scenario `{table.scenario}`" + (f" with {', '.join(chosen)}" if chosen else "") +
              f", {_seeds_text(seeds or list(table.seeds), table.seeds)}; "
              f"`ael-lab reproduce {table.key}`. Known differences: {table.evidence}.", ""]
    if svg_name:
        lines += [f"![{table.metrics[0]}: paper and ours]({svg_name})", ""]
    stats = comparisons(table, outcomes)
    paper_stats = any(o.row.stats for o in outcomes)
    head = ["row", *[f"{m} paper → ours ±sd (Δ)" for m in table.metrics], "ours 95% CI"]
    if paper_stats or len(stats) > 0:
        head += [f"t vs {table.reference}", "Welch p", "F p"]
    head.append("status")
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for o in outcomes:
        cells = [o.row.label]
        for m in table.metrics:
            cells.append(_cell(o.row.paper.get(m), o.mean(m), o.sd(m)))
        ci = o.ci(table.metrics[0])
        cells.append("–" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]")
        if len(head) > len(table.metrics) + 3:
            ours = stats.get(o.row.label, {})
            paper = o.row.stats

            def both(key: str, fmt) -> str:
                a = fmt(paper.get(key)) if key in paper else ""
                b = fmt(ours.get(key)) if ours else ""
                return f"{a} → {b}" if a and b else (f"paper {a}" if a else b or "–")

            cells += [both("t", lambda v: _num(v, 2)), both("p", _p), both("f_p", _p)]
        status = o.status_text() if not o.why else f"{o.status_text()}: {o.why}"
        cells.append(status.replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    found = pattern_lines(table, outcomes)
    return "\n".join(lines + [""] + found)


def write_report(path: Path, tables: list[PaperTable], outcomes: dict[str, list[Outcome]],
                 args: argparse.Namespace, store_path: str, seconds: float, ran: int,
                 failures: list[str] = ()) -> None:
    counts = {s: 0 for s in STATUSES}
    for rows in outcomes.values():
        for o in rows:
            counts[o.status] += 1
    agent = "offline" if args.agent == "offline" and args.reflector == "offline" else \
        f"agent {args.agent}, reflector {args.reflector}"
    seeds = getattr(args, "seeds", None)
    command = " ".join(["ael-lab reproduce", *args.tables, *(["--seeds", str(seeds)] if seeds else []),
                        *(["--report", str(path)] if args.report else [])])
    lines = ["# The paper's tables, reproduced", "",
             f"Written by `{command}` ({agent}) on {time.strftime('%Y-%m-%d')}: {ran} runs in {seconds:.0f} s "
             f"(runs already in the store are not run again); the runs are in `{store_path}` "
             f"(`ael-lab sweep --out {Path(store_path).parent} --export csv` lists them).", "",
             *(plugin_lines()), *(failed_lines(failures)), RULE, "",
             "| table | rows | " + " | ".join(_COLUMN.get(s, s) for s in COLUMNS) + " |",
             "|---|---|" + "---|" * len(COLUMNS)]
    for table in tables:
        rows = outcomes.get(table.key, [])
        per = _per_column(rows)
        if table.reason:
            per[NOT_HERE] = "whole table"
        elif table.unavailable(args.agent):
            per[NOT_HERE] = f"whole table ({NEEDS_MODEL})"
        lines.append(f"| [{table.label}](#{_anchor(table)}) | {len(rows)} | " +
                     " | ".join(str(per[s]) for s in COLUMNS) + " |")
    every = [o for rows in outcomes.values() for o in rows]
    lines.append(f"| all | {len(every)} | " + " | ".join(str(v) for v in _per_column(every).values()) + " |")
    lines += ["", two_kinds([(t.label, o) for t in tables for o in outcomes.get(t.key, [])])]
    lines.append("")
    for table in tables:
        rows = outcomes.get(table.key, [])
        svg_name = None
        plotted = [(o.row.label, o.row.paper.get(table.metrics[0]), o.mean(table.metrics[0]), o.ci(table.metrics[0]))
                   for o in rows if o.status != NOT_RUN] if table.metrics else []
        if any(ours is not None for _, _, ours, _ in plotted):
            svg_name = f"{path.stem}-{table.key}.svg"
            write_text_atomic(path.with_name(svg_name), chart(f"{table.label}: {table.metrics[0]}", plotted))
        lines.append(table_markdown(table, rows, svg_name, table_seeds(table, seeds), args.agent))
    write_text_atomic(path, "\n".join(lines))


def plugin_lines() -> list[str]:
    """The header's line naming the plugins that ran in the engine (nothing when none did)."""
    from ael_lab.registries import loaded_plugins_line

    line = loaded_plugins_line()
    return [f"**{line[:1].upper()}{line[1:]}** (they ran in the engine beside these numbers; "
            "`ael-lab --no-plugins reproduce` runs without them).", ""] if line else []


def failed_lines(failures) -> list[str]:
    """The header's list of failed runs (nothing when none failed)."""
    if not failures:
        return []
    return [f"**{len(failures)} run(s) failed** (the command exits 1):", "",
            *(f"- {shown(f)}".replace("|", "\\|") for f in failures), ""]  # an error may quote a model or a file


# The header's columns: the statuses, "reproduced" as its two kinds (issue 42)
SHOWN, NOT_SHOWN = "shown equivalent", "equivalence not shown"
COLUMNS = (SHOWN, NOT_SHOWN, *(s for s in STATUSES if s != REPRODUCED))
_COLUMN = {SHOWN: f"{REPRODUCED}: shown equivalent (TOST)", NOT_SHOWN: f"{REPRODUCED}: equivalence not shown",
           NOT_RESOLVED: f"{NOT_RESOLVED} (seeds too few)"}


def _kind(o: Outcome) -> str:
    if o.status == REPRODUCED:
        return SHOWN if o.shown_equivalent else NOT_SHOWN
    return o.status


def _per_column(rows: list[Outcome]) -> dict[str, int | str]:
    return {c: sum(_kind(o) == c for o in rows) for c in COLUMNS}


def two_kinds(rows: list[tuple[str, Outcome]]) -> str:
    """The header's sentence on the two kinds of "reproduced", and the seeds that would show
    equivalence for each row (table label, outcome) within tolerance where it is not shown."""
    shown = [o for _, o in rows if _kind(o) == SHOWN]
    within = [(table, o) for table, o in rows if _kind(o) == NOT_SHOWN]
    text = (f"Of the {len(shown) + len(within)} rows **{REPRODUCED}**, {len(shown)} are **shown equivalent** by TOST "
            f"(every metric the paper gives an sd for) and {len(within)} are within tolerance where **equivalence "
            "is not shown** at our seed count")
    if not within:
        return text + "."
    needs = []
    for table, o in within:
        missing = list(o.seeds_needed.values())
        label = f"{table} {o.row.label}"
        if not missing:
            needs.append(f"{label}: the paper gives no sd to test")
        elif any(n is None for n in missing):
            needs.append(f"{label}: no seed count")
        else:
            needs.append(f"{label}: {max(missing)}")
    return (text + ". Seeds that would show equivalence at each one's mean and sd (`--seeds N` runs those "
            "tables on N): " + "; ".join(needs) + ".")


def header_counts(text: str) -> dict[str, int]:
    """The "all" line of a report's header, as status -> count (what the tests compare with
    the status column); the two kinds of "reproduced" are summed (`reproduced_kinds` splits them)."""
    kinds = _all_line(text)
    counts = {s: kinds.get(s, 0) for s in STATUSES}
    counts[REPRODUCED] = kinds.get(SHOWN, 0) + kinds.get(NOT_SHOWN, 0)
    return counts


def reproduced_kinds(text: str) -> tuple[int, int]:
    """(shown equivalent, within tolerance where equivalence is not shown) from a report's header."""
    kinds = _all_line(text)
    return kinds[SHOWN], kinds[NOT_SHOWN]


def _all_line(text: str) -> dict[str, int]:
    lines = text.splitlines()
    head = next(line for line in lines if line.startswith("| table | rows |"))
    total = next(line for line in lines if line.startswith("| all |"))
    names = [c.strip() for c in head.strip("|").split("|")][2:]
    keys = {v: k for k, v in _COLUMN.items()}
    return {keys.get(n, n): int(c) for n, c in zip(names, total.strip("|").split("|")[2:])}


def _anchor(table: PaperTable) -> str:
    """GitHub's anchor of the table's heading."""
    text = f"{table.title} ({table.label})".lower()
    return "".join(c for c in text.replace(" ", "-") if c.isalnum() or c in "-_")
