"""`ael-lab reproduce [TABLE...]`: run the sweeps behind the paper's tables into one store
(`--out DIR`, resumable like any sweep: runs shared by several tables run once) and
write the report (`--report FILE`, Markdown with an SVG chart per table)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from ael_lab import AELError
from ael_lab.text import shown

from .model import PaperTable
from .tables import TABLES, table_keys

DEFAULT_OUT = "reproduce-out"


def add_parser(sub) -> None:
    from ael_cli.flags.llm_flags import add_llm_flags

    p = sub.add_parser("reproduce", help="run the sweeps behind the paper's tables and write a report comparing "
                                         "ours with the paper's numbers")
    p.add_argument("tables", nargs="*", metavar="TABLE", help=f"which tables (default all): {', '.join(table_keys())}")
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                   help=f"the runs' store, DIR/sweep.sqlite (default {DEFAULT_OUT}; finished runs are kept)")
    p.add_argument("--report", metavar="FILE", help="the Markdown report (default DIR/report.md); its SVG charts "
                                                    "are written beside it")
    p.add_argument("--dfull", metavar="DIR", help="the paper's D-full portfolio data (default ../shared/data/dfull)")
    p.add_argument("--news", metavar="PATH", help="the 20 Newsgroups corpus for tab:news_crossdomain: the "
                                                  "20news-bydate.tar.gz archive or the folder it unpacks to (default "
                                                  "$AEL_NEWS_DATA, else ../shared/data/news/20news-bydate.tar.gz; "
                                                  "without it the table says it needs the corpus)")
    p.add_argument("--seeds", type=_seed_count, metavar="N",
                   help="run the cheap tables (synthetic, support, news) on N seeds: the paper's five, then 1, 2, "
                        "3, ... (default 5); the portfolio tables keep the paper's five")
    p.add_argument("--workers", type=int, help="worker processes (default: every core)")
    p.add_argument("--llm-concurrency", type=int, help="LLM-backed runs in flight at once (default 4 per core)")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    add_llm_flags(p)


def _seed_count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 5 <= n <= 1000:
        raise argparse.ArgumentTypeError("between 5 (the paper's seeds) and 1000")
    return n


def reproduce_command(args: argparse.Namespace) -> int:
    """Runs the tables and writes the report; 1 when a run failed (the report's header names
    each failed run), else 0."""
    from ael_cli.sweep.sweep_command import check_slots

    check_slots(args)
    chosen = _chosen(args.tables)
    report = Path(args.report or os.path.join(args.out, "report.md"))
    from ael_lab.store import check_target

    try:
        report.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise AELError(f"--report: cannot create {report.parent}: {err.strerror or err}") from None
    check_target(report)  # before any run: a report that cannot be written must not cost the sweeps
    started = time.monotonic()
    from .run import run_tables

    outcomes, store_path, ran, failures = run_tables(chosen, args)
    from .markdown import write_report

    write_report(report, chosen, outcomes, args, store_path, time.monotonic() - started, ran, failures)
    if failures:
        print(f"ael-lab: reproduce: {len(failures)} run(s) failed, the first: {shown(failures[0])} "
              f"(all listed at the top of {report})", file=sys.stderr)
    if not args.quiet:
        print(f"ael-lab: reproduce: wrote {report}", file=sys.stderr)
    return 1 if failures else 0


def _chosen(names: list[str]) -> list[PaperTable]:
    if not names:
        return list(TABLES)
    by_key = {t.key: t for t in TABLES} | {t.label: t for t in TABLES}
    unknown = [n for n in names if n not in by_key]
    if unknown:
        raise AELError(f"reproduce: no table {unknown[0]!r} (expected {', '.join(table_keys())})")
    keys = list(dict.fromkeys(by_key[n].key for n in names))
    return [t for t in TABLES if t.key in keys]
