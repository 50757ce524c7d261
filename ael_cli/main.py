"""The `ael-lab` command: the lab by default, and the headless runner.

    ael-lab                          open the lab (start screen)
    ael-lab lab SCENARIO [--seed N]  open the lab on a new session
    ael-lab open FILE                open a saved session in the lab
    ael-lab run SCENARIO [flags]     batch runs, sweeps, benchmarks
    ael-lab sweep SCENARIO --out DIR a grid on every core (or Dask) into a resumable store
    ael-lab reproduce [TABLE...]     run the paper's tables and write a report beside its numbers
    ael-lab export-stream SCENARIO   write a scenario's stream as JSONL
    ael-lab serve [--port 8000]      the lab in web browsers, one per visitor (a class)
    ael-lab replay SAVE [SAVE ...]   the paper's bandit replay on saved runs
    ael-lab branch SAVE --at N       a saved run taken back to episode N, a decision changed there
    ael-lab explain SAVE --episode N why episode N of a saved run went as it did
    ael-lab chart SAVE --kind K --svg OUT  a saved run as one SVG picture (arms, reward, regret, regimes)

Every error a user can cause is one line on stderr and exit code 2; no file
is written unless the run succeeded (saves and JSON are atomic). A resumed run
that stops at a proposal waiting for a person exits 3 (ael_cli/resume_decisions.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from typing import Sequence

from ael_lab import AELError
from ael_lab.store import remove_temp_files_on_signals
from ael_lab.worlds import all_specs

from ael_cli.flags import values as types
from ael_cli.flags.values import parse_seeds
from ael_cli.flags.llm_flags import add_llm_flags
from ael_cli.flags.reflection_flags import add_reflection_flags
from ael_cli.flags.scenario_flags import add_scenario_flags, scenario_help

# Nothing imported above reads a plugin registry: `--no-plugins` is honoured in main()
# before build_parser imports the methods and variants (whose import reads their plugins).

EXIT_USAGE = 2
RUN_EXIT_CODES = ("exit status: 0 the runs reached their end (or --until); 2 a bad input, in one line; 3 a "
                  "resumed run stopped before its end at a proposal waiting for a person (a save made in manual "
                  "approval, a branch's run ahead): one line names it and the --decide or --approve that "
                  "decides it, no table is printed, and --json says \"complete\": false")
NO_PLUGINS = "--no-plugins"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, not a usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise AELError(f"{message} (see {self.prog} --help)")


def build_parser() -> argparse.ArgumentParser:
    from ael_lab.selectors import method_help  # reads the methods' plugins (engine/plugins.py)
    from ael_cli.flags.variant_flags import add_variant_flag  # and the variants'

    p = _Parser(prog="ael-lab", description="AEL Lab: step, watch and steer an agent that learns how to use its memory.")
    p.add_argument(NO_PLUGINS, action="store_true",
                   help="load no plugin (no entry point of ael_lab.scenarios, .methods, .variants, .panels); "
                        "the lab: AEL_NO_PLUGINS=1")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    # what the scenarios and methods declare: their names, one-line summaries and options
    specs = all_specs()
    scenario_names = f"one of: {scenario_help(specs)}"

    from .timetravel_command import decision

    run = sub.add_parser("run", help="run sessions headless and print the results table", epilog=RUN_EXIT_CODES)
    run.add_argument("scenario", nargs="?", help=f"{scenario_names} (with --resume FILE: none needed, the save "
                                                  "names it)")
    run.add_argument("--seeds", type=parse_seeds, help="comma list and/or ranges: 42,123 or 1..200 (default 42)")
    run.add_argument("--selector", help=f"{method_help()}; a comma list, or all (default ts+reflection)")
    run.add_argument("--episodes", type=types.episodes, help="stop the stream after N episodes")
    run.add_argument("--approve", "--approval", dest="approve", choices=["auto", "reject"],
                     help="what happens to proposals in batch (default auto); with --resume, the approval mode "
                          "from there on, for a manual-approval save too (a proposal a person decided in the "
                          "run ahead is decided as there)")
    run.add_argument("--decide", type=decision, action="append", metavar="K=approve|reject",
                     help="with --resume: decide proposal K (its number in the audit log) this way when the "
                          "resumed run waits at it (repeatable)")
    run.add_argument("--until", type=types.until, help="stop at this episode (exclusive), e.g. to --save mid-run")
    run.add_argument("--save", help="save the session here at the end (one run only)")
    run.add_argument("--resume", metavar="FILE", help="continue a saved session to the end (its scenario is the "
                                                      "save's: ael-lab run --resume FILE)")
    run.add_argument("--trust-code", action="store_true",
                     help="with --resume: admit the save's Python-code policies unreviewed (they run sandboxed)")
    run.add_argument("--json", dest="json_path", help="write results as JSON here (- for standard output, "
                     "then without the table)")
    run.add_argument("--force", action="store_true",
                     help="let --save replace a file that is not a session (and --json one that is)")
    run.add_argument("--warmup", type=types.warmup, help="warm-up episodes (default: the scenario's)")
    run.add_argument("--split", type=types.fraction_pair, help="train,val fractions after warm-up, e.g. 0.6,0.2")
    run.add_argument("--prior", type=types.prior, help="Beta prior alpha,beta of every arm (default 1,1)")
    add_reflection_flags(run)
    run.add_argument("--quiet", action="store_true", help="no progress bar and no table")
    run.add_argument("--workers", type=int,
                     help="worker processes for independent offline runs (default: every core; the results "
                          "are the same for any count; LLM-backed runs go one at a time)")
    run.add_argument("--allow-code-auto", action="store_true",
                     help="let --approve auto admit Python-code policies too (off: they are rejected in batch)")
    add_scenario_flags(run, specs)
    add_variant_flag(run)
    add_llm_flags(run)

    lab = sub.add_parser("lab", help="open the lab on a new session")
    lab.add_argument("scenario", help=scenario_names)
    lab.add_argument("--seed", type=types.seed, default=42)
    lab.add_argument("--selector", default="ts+reflection")
    lab.add_argument("--approve", "--approval", dest="approve", choices=["manual", "auto"], default="manual")
    add_reflection_flags(lab)
    add_scenario_flags(lab, specs)
    add_variant_flag(lab)
    add_llm_flags(lab)

    op = sub.add_parser("open", help="open a saved session in the lab")
    op.add_argument("file")
    op.add_argument("--llm-url", help="confirm the LLM endpoint the file names (a file cannot choose it for you)")

    ex = sub.add_parser("export-stream", help="write a scenario's episode stream as JSONL to stdout")
    ex.add_argument("scenario", help=scenario_names)
    ex.add_argument("--seed", type=types.seed, default=42)

    from .serve_flags import add_parser as add_serve
    from .replay_command import add_parser as add_replay
    from .reproduce.reproduce_command import add_parser as add_reproduce
    from .sweep.flags import add_parser as add_sweep
    from .timetravel_command import add_parsers as add_timetravel
    from .chart_command import add_parser as add_chart

    add_serve(sub)
    add_sweep(sub, scenario_names, method_help(), specs)
    add_reproduce(sub)
    add_replay(sub)
    add_timetravel(sub)
    add_chart(sub)
    return p




def _notice_line(message, category, filename, lineno, file=None, line=None) -> None:
    """A notice the engine gives as a warning (a sandbox wall this kernel lacks) is one line
    on stderr, as every other message of the command line, not Python's two-line form."""
    print(f"ael-lab: note: {message}", file=file or sys.stderr)


def _whole_command_flags_first(argv: Sequence[str]) -> list[str]:
    """`--no-plugins` is the whole command's, wherever it is typed: `ael-lab run support
    --no-plugins` as `ael-lab --no-plugins run support` (after the command it was an
    unrecognised argument, found only once every plugin had been loaded). Not after `--`."""
    args = list(argv)
    end = args.index("--") if "--" in args else len(args)
    if NO_PLUGINS not in args[:end]:
        return args
    return [NO_PLUGINS, *(a for a in args[:end] if a != NO_PLUGINS), *args[end:]]


def _no_plugins_asked(argv: Sequence[str]) -> bool:
    """`--no-plugins` among the options before the command (read before any registry is)."""
    for arg in argv:
        if arg == NO_PLUGINS:
            return True
        if not arg.startswith("-"):
            return False
    return False


def main(argv: Sequence[str] | None = None) -> int:
    remove_temp_files_on_signals()
    warnings.showwarning = _notice_line
    try:
        argv = _whole_command_flags_first(sys.argv[1:] if argv is None else argv)
        if _no_plugins_asked(argv):
            from ael_lab.registries import PLUGINS_OFF, loaded_plugins, loaded_plugins_line

            os.environ[PLUGINS_OFF] = "1"  # this process and every one it starts (workers, the lab's)
            if loaded_plugins():  # main() called in a process that had already read them
                raise AELError(f"{NO_PLUGINS}: plugins were loaded before the command line was read "
                               f"({loaded_plugins_line()}); start a new process with {PLUGINS_OFF}=1")
        parser = build_parser()  # reads every registry, plugins included
        from ael_lab.registries import PLUGIN_NOTICES

        for notice in PLUGIN_NOTICES:  # a plugin left out: one line at start-up, never a crash
            print(f"ael-lab: warning: {notice}", file=sys.stderr)
        args = parser.parse_args(argv)
        if args.command == "run":
            from ael_cli.runner import run_command

            code = run_command(args)
        elif args.command == "replay":
            from ael_cli.replay_command import replay_command

            code = replay_command(args)
        elif args.command == "sweep":
            from ael_cli.sweep.sweep_command import sweep_command

            code = sweep_command(args)
        elif args.command == "reproduce":
            from ael_cli.reproduce.reproduce_command import reproduce_command

            code = reproduce_command(args)
        elif args.command in ("branch", "explain"):
            from ael_cli import timetravel_command

            code = getattr(timetravel_command, f"{args.command}_command")(args)
        elif args.command == "chart":
            from ael_cli.chart_command import chart_command

            code = chart_command(args)
        elif args.command == "export-stream":
            code = export_stream(args)
        elif args.command == "serve":  # the lab served: imported only now, as `open_lab` imports the lab
            from ael_tui.serve.command import serve_command

            code = serve_command(args)
        else:
            code = open_lab(args)
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not at exit
        return code
    except AELError as err:
        from ael_lab.text import scrub  # an error line is shown: it must never carry a key
        from ael_lab.text import shown  # nor obey an escape a file's column name or value brought

        print(f"ael-lab: {shown(scrub(str(err)))}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as err:
        if not _is_stdout_error(err):
            raise
        _silence_stdout()
        what = "output closed early (broken pipe)" if isinstance(err, BrokenPipeError) else \
            f"cannot write the output: {err.strerror or err}"
        print(f"ael-lab: {what}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ael-lab: interrupted", file=sys.stderr)
        return 130


def export_stream(args: argparse.Namespace) -> int:
    from ael_lab.worlds import scenario_class, spec_of

    if not spec_of(args.scenario).exports_stream:
        raise AELError(f"the {args.scenario} scenario has no stream to export")
    for row in scenario_class(args.scenario).export_stream(args.seed):
        sys.stdout.write(json.dumps(row) + "\n")
    return 0


def _is_stdout_error(err: OSError) -> bool:
    """Whether `err` came from writing stdout (a closed pipe, a full disk), which main
    reports in one line; other OSErrors are not the user's output and stay bugs."""
    import errno

    return isinstance(err, BrokenPipeError) or err.errno in (errno.ENOSPC, errno.EPIPE, errno.EDQUOT, errno.EIO)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's exit-time flush cannot fail
    (and print a second, unhelpful message)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def open_lab(args: argparse.Namespace) -> int:
    try:
        from ael_tui.app import run_app
    except ImportError as err:
        raise AELError(f"the lab's interface is not available in this build ({err})") from err
    return run_app(args)


if __name__ == "__main__":
    raise SystemExit(main())
