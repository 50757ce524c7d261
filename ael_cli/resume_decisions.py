"""`ael-lab run --resume` of a session that waits for a person: who decides, and what a
run that stops before its end says.

A save made in manual approval (the start screen's default) stops at every proposal, and
one that went back (`ael-lab branch`, `b` in the lab) keeps its run ahead, whose decisions
a person made wait for a person again (engine/timetravel.py). Headless there is nobody to
ask: the run stops there, prints no results table (its numbers are of a part of the
stream, beside the paper's row of the whole), writes `"complete": false` in `--json`,
names the waiting proposal and the flag that decides it in one line, and exits
EXIT_STOPPED. What decides, with --resume:

  --decide K=approve|reject  proposal K, when the run reaches it waiting (repeatable)
  --approve auto|reject      the approval mode from here on, for what nobody else decides;
                             a decision a person made in the run ahead is made as it was
                             there (with its who and reason), so a branch continues as the
                             run it was cut from did
"""

from __future__ import annotations

import argparse
import shlex

from ael_lab import AELError
from ael_lab.runs import KIND_NAMES, run_outcome as outcome, waiting  # noqa: F401  (what a waiting run says)
from ael_lab.text import scrub
from ael_lab.runs import Session

EXIT_STOPPED = 3  # 0: the run reached its end or --until; 2: a bad input (ael_cli/main.py)

PAST = {"approve": "approved", "edit": "edited (--approve makes the same edit)", "reject": "rejected"}


def decisions_given(args: argparse.Namespace) -> dict[int, str]:
    """--decide as {K: approve|reject}; refused in one line without --resume or when K is given twice."""
    given = getattr(args, "decide", None) or []
    if given and not getattr(args, "resume", None):
        raise AELError("--decide: only with --resume (it decides a proposal a resumed run waits at; "
                       "a new run's proposals are decided by --approve)")
    out: dict[int, str] = {}
    for k, what in given:
        if out.get(k, what) != what:
            raise AELError(f"--decide: proposal #{k} is given both approve and reject")
        out[k] = what
    return out


def prepare(session: Session, args: argparse.Namespace) -> None:
    """Before the resumed run steps: --approve becomes the session's approval mode, and a --decide
    naming a proposal the save had already decided is refused (it would silently do nothing)."""
    for k, what in decisions_given(args).items():
        p = next((p for p in session.queue.proposals if p.id == k), None)
        if p is not None and p.status != "pending":
            raise AELError(f"--decide {k}={what}: proposal #{k} was already {p.status} in {args.resume} (after "
                           f"episode {p.episode}); to decide it otherwise: ael-lab branch {args.resume} --at N "
                           f"--decide {k}={what} --save OUT, N after episode {p.episode}")
    if args.approve:
        session.queue.mode = args.approve


def decide_waiting(session: Session, args: argparse.Namespace, until: int | None) -> bool:
    """Decide the proposals the resumed run stopped at, as the flags say; whether any was
    decided (then the run steps on). Nothing is decided where the run reached its end or --until."""
    end = session.n_episodes if until is None else min(until, session.n_episodes)
    if session.t >= end or not session.queue.pending:
        return False
    decided = False
    for pid, what in decisions_given(args).items():
        p = next((p for p in session.queue.pending if p.id == pid), None)
        if p is not None:
            session.decide(pid, what, who="cli:--decide",
                           reason=f"decided on the command line (--decide {pid}={what}) where the resumed run waited")
            decided = True
    if args.approve and session.queue.pending:
        # as the run ahead decided them (a person, between these two episodes), then the mode
        decided = session.timeline.decide_as_before(session) or decided
        for p in list(session.queue.pending):
            auto = session.queue.automatic_decision(p)
            what = auto[0] if auto else "reject"  # (a code policy with nobody to review it)
            session.decide(p.id, what, who=f"cli:--approve {args.approve}",
                           reason=f"decided by --approve {args.approve} where the resumed run waited")
            decided = True
    return decided


def stopped_line(session: Session, args: argparse.Namespace) -> str:
    """The one line a run stopped at waiting proposals ends with: where, what, and the command that decides them."""
    pending = session.queue.pending
    # the decisions given this time stay in the command: from the same save, they are needed again
    decide = [f"--decide {k}={what}" for k, what in decisions_given(args).items() if not args.save]
    ahead = []
    for p in pending:
        before = session.timeline.recorded_decision(p)  # approve, edit, reject or None
        decide.append(f"--decide {p.id}={'reject' if before == 'reject' else 'approve'}")
        if before:
            ahead.append(f"#{p.id} {PAST[before]}")
    source = args.save or args.resume
    command = f"ael-lab run {session.config.scenario} --resume {shlex.quote(source)} {' '.join(decide)}"
    if getattr(args, "trust_code", False):
        command += " --trust-code"
    if getattr(args, "llm_url", None):
        command += f" --llm-url {shlex.quote(args.llm_url)}"
    verb = "waits" if len(pending) == 1 else "wait"
    told = f"; the run ahead: {', '.join(ahead)}" if ahead else ""
    saved = f"; saved at episode {session.t} to {args.save}" if args.save else ""
    return scrub(f"stopped at episode {session.t} of {session.n_episodes}, before the end: {waiting(session)} "
                 f"{verb} for a person's decision{told}{saved}; no results table for a partial run; decide: "
                 f"{command} (approve or reject each), or --approve auto|reject for all that wait")


def unused_decisions(session: Session, args: argparse.Namespace) -> list[int]:
    """The proposals --decide named that the run never waited at (said in a warning, not silently dropped)."""
    made = {a.proposal_id for a in session.queue.audit if a.who == "cli:--decide"}
    return [k for k in decisions_given(args) if k not in made]
