"""`ael-lab branch` and `ael-lab explain`: a saved run taken back to an episode.

    ael-lab branch SAVE --at N [--decide K=approve|reject ...] --save OUT
        the run of SAVE as it stood at the start of episode N, with proposal K (the
        audit log's proposal #K, numbered from 1) decided the other way (an N before K's
        decision: replayed to it and decided there, as the lab does); `ael-lab run SCENARIO --resume
        OUT` continues the branch (it stops, exit code 3, where a person's decision of the
        run ahead waits; `--approve auto` there makes it as it was).
    ael-lab explain SAVE --episode N [--json]
        episode N as the agent saw it, what it retrieved and why, what the other
        policies would have retrieved, the decision and the outcome.

Both replay the save from its seed and its audit log (engine/timetravel.py): nothing
per episode is stored in a save. Every error is one line and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys

from ael_lab import AELError


def decision(text: str) -> tuple[int, str]:
    """K=approve or K=reject (K: a proposal's number in the audit log)."""
    k, sep, what = text.partition("=")
    k = k.strip().lstrip("#")
    if not sep or not k.isdigit() or int(k) < 1 or what.strip() not in ("approve", "reject"):
        raise argparse.ArgumentTypeError(f"{text!r}: give K=approve or K=reject, K a proposal's number")
    return int(k), what.strip()


def episode(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an episode number") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: an episode number is 0 or more")
    return n


# what the refusal of a save whose LLM calls go to a URL asks for (engine/store/persistence.py)
LLM_URL_HELP = "confirm the LLM endpoint the save names (a file cannot choose where your API key goes)"


def add_parsers(sub) -> None:
    br = sub.add_parser("branch", help="a saved run taken back to episode N, a decision changed there")
    br.add_argument("file", metavar="SAVE", help="a saved session")
    br.add_argument("--at", type=episode, required=True, help="the episode to go back to (its start)")
    br.add_argument("--decide", type=decision, action="append", default=[], metavar="K=approve|reject",
                    help="decide proposal K (the audit log's proposal #K) this way instead; an --at before "
                         "its decision replays to it (repeatable)")
    br.add_argument("--save", required=True, help="where to save the branch")
    br.add_argument("--force", action="store_true", help="let --save replace a file that is not a session")
    br.add_argument("--trust-code", action="store_true",
                    help="admit the save's Python-code policies unreviewed (they run sandboxed)")
    br.add_argument("--llm-url", help=LLM_URL_HELP)

    ex = sub.add_parser("explain", help="why episode N of a saved run went as it did")
    ex.add_argument("file", metavar="SAVE", help="a saved session")
    ex.add_argument("--episode", type=episode, required=True, help="the episode to explain")
    ex.add_argument("--json", action="store_true", help="print the explanation as JSON")
    ex.add_argument("--trust-code", action="store_true",
                    help="admit the save's Python-code policies unreviewed (they run sandboxed)")
    ex.add_argument("--llm-url", help=LLM_URL_HELP)


def _load(path: str, trust_code: bool, llm_url: str | None):
    from ael_lab.store import load_session
    from ael_lab.worlds import make_scenario

    from ael_cli.runner import admit_saved_code

    session = load_session(path, make_scenario, llm_url=llm_url)
    admit_saved_code(session, argparse.Namespace(resume=path, trust_code=trust_code))
    return session


def branch_command(args: argparse.Namespace) -> int:
    from ael_lab.store import save_session

    from ael_cli.outputs import check_run_outputs

    check_run_outputs(argparse.Namespace(save=args.save, resume=args.file, force=args.force))
    decide: dict[int, str] = {}
    for k, what in args.decide:
        if decide.get(k, what) != what:
            raise AELError(f"--decide: proposal #{k} is given both approve and reject")
        decide[k] = what
    session = _load(args.file, args.trust_code, args.llm_url)
    if args.at > session.t:
        raise AELError(f"--at {args.at}: {args.file} has run only to episode {session.t}")
    session.timeline.keep_original(session)  # the run it branches from: the lab's compare view (B) shows both
    stopped = session.branch(args.at, decide)
    save_session(session, args.save)
    changed = ", ".join(f"#{k} {'approved' if w == 'approve' else 'rejected'}" for k, w in sorted(decide.items()))
    if session.t > args.at and not stopped:  # --at came before the decision: the branch starts at it
        changed += f"; replayed from episode {args.at} to where it was decided"
    # the command that continues it, with the confirmations its resume asks for again
    resume = f"ael-lab run {session.config.scenario} --resume {shlex.quote(args.save)}"
    if args.trust_code:
        resume += " --trust-code"
    if args.llm_url:
        resume += f" --llm-url {shlex.quote(args.llm_url)}"
    print(f"branch of {args.file} at episode {session.t}" + (f" ({changed})" if changed else " (no decision changed)")
          + f": saved {args.save}; continue with: {resume}")
    if stopped:
        print(f"ael-lab: the branch stopped at episode {session.t}, before {args.at}: {stopped}", file=sys.stderr)
    return 0


def explain_command(args: argparse.Namespace) -> int:
    from ael_lab.review import explain, render_explanation

    session = _load(args.file, args.trust_code, args.llm_url)
    report = explain(session, args.episode)
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2, default=str) + "\n")
    else:
        sys.stdout.write(render_explanation(report, _terminal_width()))
    return 0


def _terminal_width() -> int | None:
    """A terminal's width, which the side-by-side bands fit; None for a file or a pipe (the
    engine's default width)."""
    import shutil

    width = shutil.get_terminal_size((0, 0)).columns
    return max(width, 60) if sys.stdout.isatty() and width else None
