"""Time travel: rewind a session to any earlier episode, step on to the same run, or branch.

A run is deterministic from its seed, so the past need not be stored episode by
episode: the `Timeline` keeps a saved state (the session's own `to_dict`, pickled,
without the history, which only grows) at the start, then once the steps since the
last one took long enough (see CHECKPOINT_BUDGET_S), and whenever a person
changed something between two steps (a decision, a standing rule, a reviewed code
arm, an edit of memory's size or of the pool), and `rewind_to(n)` restores the
nearest one at or before n and replays forward to n. Decisions that a rule made
inside a step come back by themselves; decisions a person made between steps are
replayed from the audit log, each at the boundary it was made at (an audit entry's
`episode` is the last episode completed when it was made), with its original who,
reason and time.

A checkpoint at t is the state just before episode t is stepped: everything decided
at that boundary is in it. `rewind_to(n)` gives the session as it stood when it
stepped on from n (the decisions made at n included). The run before the rewind is
kept as the "tape" (its history, audit log and standing rules): stepping forward
again replays it, and every replayed episode is compared with the tape's record, so
a replay that differs says so rather than passing for the original. A step that
departs from the tape (another decision, another edit) makes the branch the run:
the tape and the checkpoints after that point are dropped.

`branch(n, {K: "approve"|"reject"})` replays to the boundary where proposal K was
decided, decides it the other way (recorded in the audit log as a person's decision,
with the reason saying it is a branch), and steps on to n; later decisions a person
made on proposals that existed before the change are replayed, the mode and standing
rules decide the rest, and a proposal nobody decided stops the branch there.

Sessions played by a live model are not replayed (the model would be asked again and
answer differently); a session answering from a cassette is.
"""

from __future__ import annotations

import pickle
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .errors import AELError

if TYPE_CHECKING:
    from .approvals import AuditEntry
    from .session import Session

# A checkpoint once the steps since the last one took CHECKPOINT_BUDGET_S, or CHECKPOINT_RATIO times
# what taking one costs, whichever is longer: a rewind replays at most about that much work, and
# keeping checkpoints costs a run at most about 1/CHECKPOINT_RATIO of its time (a support ticket
# steps in under 1 ms and a checkpoint of its session takes ~5 ms; a portfolio bar ~15 ms)
CHECKPOINT_BUDGET_S = 0.05
CHECKPOINT_RATIO = 10
MAX_CHECKPOINTS = 200  # beyond: every other older one is dropped and the spacing doubles (bounded memory)
HUMAN_DECISIONS = ("approve", "edit", "reject")


def _who_is_rule(who: str) -> bool:
    """An automatic decision made inside a step (a rule, the engine), not between steps."""
    return who.startswith("rule:") or who == "engine"


def decided_alike(a: "AuditEntry", b: "AuditEntry") -> bool:
    """Two audit entries that shape the run alike: the same proposal decided the same way (the
    same object accepted) at the same boundary, whoever decided it and in whatever words. A
    person deciding after an undo as a rule did before is the run that was, not a branch."""
    return (a.seq, a.episode, a.proposal_id, a.kind, a.decision, a.proposed, a.accepted, a.code_sha256) == \
        (b.seq, b.episode, b.proposal_id, b.kind, b.decision, b.proposed, b.accepted, b.code_sha256)


def comparable(entry: "AuditEntry") -> tuple:
    """An audit entry without its wall-clock time: two runs that decided alike compare equal."""
    d = asdict(entry)
    d.pop("at", None)
    return tuple(sorted((k, repr(v)) for k, v in d.items()))


@dataclass
class Tape:
    """The run as it was before a rewind: what replaying forward must give again."""

    t: int
    history: list[dict[str, Any]]
    audit: list["AuditEntry"]
    rules: list[dict[str, Any]]
    _by_episode: dict[int, list["AuditEntry"]] | None = None

    @classmethod
    def of(cls, s: "Session") -> "Tape":
        return cls(s.t, list(s.history), list(s.queue.audit), [asdict(r) for r in s.queue.rules])

    def copy(self) -> "Tape":
        """Another tape of the same run, for another session to follow (its lists its own)."""
        return Tape(self.t, list(self.history), list(self.audit), list(self.rules))

    def to_dict(self) -> dict[str, Any]:
        return {"t": self.t, "history": self.history, "audit": [asdict(a) for a in self.audit],
                "rules": self.rules}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Tape":
        from .approvals import AuditEntry

        return cls(d["t"], list(d["history"]), [AuditEntry(**a) for a in d["audit"]], list(d["rules"]))

    def decided_after(self, e: int) -> list["AuditEntry"]:
        """The decisions a person made between episode e and the next (in the order made)."""
        if self._by_episode is None:
            self._by_episode = {}
            for a in self.audit:
                if not _who_is_rule(a.who):
                    self._by_episode.setdefault(a.episode, []).append(a)
        return self._by_episode.get(e, [])


@dataclass
class Checkpoint:
    t: int
    blob: bytes                    # pickle of Session.to_dict() without "history" and "usage"
    history_len: int
    signature: tuple
    forced: bool = False           # the start, or a change made between steps: never thinned out


@dataclass
class Timeline:
    budget_s: float = CHECKPOINT_BUDGET_S
    ratio: float = CHECKPOINT_RATIO
    keep: bool = True             # False: only the start is kept (a batch run never goes back; a rewind
                                  # then replays from episode 0, as exactly)
    checkpoints: dict[int, Checkpoint] = field(default_factory=dict)
    tape: Tape | None = None
    diverged_at: int | None = None  # the episode where a replay first differed from the tape
    # the run as it stood before a person went back (a session's to_dict), kept so that a branch
    # can be compared with it; the lab decides when (ael_tui/lab/time_travel.py), a save keeps it
    original: dict[str, Any] | None = None
    _post_signature: tuple | None = None
    _flip: dict[int, str | None] = field(default_factory=dict)  # proposals a branch decides the other way
    _who: str = "human"           # who the branch's decisions are recorded as made by
    _spent: float = 0.0           # step time since the last checkpoint
    _started: float = 0.0
    _cost: float = 0.0            # what the last checkpoint took
    _atomic: bool = False         # inside `atomic`: an inner one takes no second snapshot
    capture_s: float = 0.0        # what all checkpoints took (bench/rewind.py)

    def keep_original(self, s: "Session") -> None:
        """Before going back: freeze the run as it stands (`original`), unless the session is a
        branch of the one kept; that one stays, the run the branch is compared with."""
        o = self.original
        if o is None or (s.t >= len(o["history"]) and s.history[:len(o["history"])] == o["history"]):
            self.original = pickle.loads(pickle.dumps(s.to_dict(), protocol=pickle.HIGHEST_PROTOCOL))

    # ---------------------------------------------------------------- in a save
    def to_doc(self, s: "Session") -> dict[str, Any] | None:
        """What a save keeps of going back (None: nothing): the run ahead, so that stepping on
        after a load follows it as if the session had never stopped (a person's decisions in it
        wait for the person again, a replay that differs says so), and the original of a branch.
        Checkpoints are not kept: they are rebuilt by replaying, which is exact."""
        tape = self.tape if self.tape is not None and self.tape.t > s.t else None
        if tape is None and self.original is None:
            return None
        return {"tape": tape.to_dict() if tape is not None else None, "original": self.original}

    def load_doc(self, doc: dict[str, Any] | None, s: "Session") -> None:
        """`to_doc`'s document (checked against the schema) back into the timeline of `s`, the
        session it was saved with; AELError naming the field where it belongs to another run."""
        if not doc:
            return
        tape = doc.get("tape")
        if tape is not None:
            if not s.t < tape["t"] <= s.n_episodes:
                raise AELError(f"field timeline.tape.t: {tape['t']} is not an episode ahead of this session "
                               f"(at {s.t} of {s.n_episodes})")
            if tape["history"][:s.t] != s.history:
                first = next(i for i, (a, b) in enumerate(zip(tape["history"], s.history)) if a != b)
                raise AELError(f"field timeline.tape.history[{first}]: the run ahead does not continue this "
                               f"session (its episode {first} is another)")
            self.tape = Tape.from_dict(tape)
        original = doc.get("original")
        if original is not None:
            # going back never changes a session's config, so a branch's original has all of it (its
            # prior, split, approval mode, allow_code_auto...): any field that differs is another run's
            mine = s.config.to_dict()
            try:  # (a save from before a field existed holds its default: read as the session's was)
                theirs = type(s.config).from_dict(original["config"]).to_dict()
            except (TypeError, ValueError, KeyError) as err:
                raise AELError(f"field timeline.original.config: not a session's config ({err})") from None
            for key, value in mine.items():
                if theirs.get(key) != value:
                    raise AELError(f"field timeline.original.config.{key}: the original run is not a run of "
                                   f"this session ({theirs.get(key)!r}, this one {value!r})")
            self.original = original

    # ---------------------------------------------------------------- hooks
    @staticmethod
    def signature(s: "Session") -> tuple:
        """What a person can change between steps, cheaply: a change here forces a checkpoint."""
        q = s.queue
        return (len(q.audit), len(q.rules), sum(r.revoked_episode is not None for r in q.rules), q.mode,
                tuple(sorted(q.standing.items())), tuple(s.pool), repr(s.insight),
                tuple(len(t) for t in s.memory.tiers.values()), tuple(sorted(s.code_arms.quarantined)),
                tuple(sorted(s.code_arms.suspended)), q.allow_code_auto)

    def capture(self, s: "Session", forced: bool = False) -> None:
        """Keep the session's state now (before episode s.t) as a checkpoint; a forced one (the
        start, a change a person made between steps) is never thinned out."""
        started = time.perf_counter()
        d = s.to_dict()
        d.pop("history")
        d.pop("usage", None)
        self.checkpoints[s.t] = Checkpoint(s.t, pickle.dumps(d, protocol=pickle.HIGHEST_PROTOCOL),
                                           len(s.history), self.signature(s), forced)
        if len(self.checkpoints) > MAX_CHECKPOINTS:
            self._thin(s.t)
        self._spent, self._cost = 0.0, time.perf_counter() - started
        self.capture_s += self._cost

    def before_step(self, s: "Session") -> None:
        t = s.t
        sig = self.signature(s)
        changed = self._post_signature is not None and sig != self._post_signature
        cp = self.checkpoints.get(t)
        if cp is not None and cp.signature != sig and self._decided_as_tape(s, cp.signature, sig):
            cp = None  # the decisions the run that was made here, made again in other words: still on it
        elif cp is not None and cp.signature != sig:  # the run that was was in another state here
            self._diverge(t - 1)
            cp = None
        elif self.tape is not None and changed and (
                not self._audit_follows_tape(s)
                or cp is None and not self._decided_as_tape(s, self._post_signature, sig, boundary=t - 1)):
            # a change between steps where the run that was had none (each of its changes has a
            # checkpoint), or other decisions than it made: from here on it is another run
            self._diverge(t - 1)
            cp = None
        if t == 0:  # the start as it really is (an interface may have set things after building the session)
            self.capture(s, forced=True)
        elif cp is None and (changed or self.keep and self._spent >= max(self.budget_s, self.ratio * self._cost)):
            self.capture(s, forced=changed)
        elif cp is not None:
            self._spent = 0.0
        self._started = time.perf_counter()

    def after_step(self, s: "Session") -> None:
        self._spent += time.perf_counter() - self._started
        self._post_signature = self.signature(s)
        tape = self.tape
        if tape is None:
            return
        t = s.t - 1
        if t < len(tape.history) and s.history[-1] != tape.history[t]:
            self.diverged_at = t if self.diverged_at is None else self.diverged_at
            self._diverge(t)
        elif s.t >= tape.t:
            self.tape = None  # caught up with the run as it was: the session holds all of it again

    def person_decided(self, p) -> bool:
        """Proposal `p` (just made) is a person's to decide, not the approval mode's or a standing
        rule's: a branch decides it the other way (`_flip`), or a person decided it in the run being
        replayed (the tape), e.g. after an undo where a rule had decided it. It waits for that
        decision, made at its boundary (a rewind, a branch) or by the person stepping on."""
        if p.id in self._flip:
            return True
        tape = self.tape
        return tape is not None and any(
            a.proposal_id == p.id and a.kind == p.kind and a.proposed == p.payload and not _who_is_rule(a.who)
            and a.decision in HUMAN_DECISIONS for a in tape.audit)

    def recorded_decision(self, p) -> str | None:
        """How a person decided proposal `p` in the run ahead (approve, edit or reject), if one did."""
        tape = self.tape
        for a in reversed(tape.audit if tape is not None else []):
            if a.proposal_id == p.id and a.kind == p.kind and a.proposed == p.payload and not _who_is_rule(a.who) \
                    and a.decision in HUMAN_DECISIONS:
                return a.decision
        return None

    def decide_as_before(self, s: "Session") -> bool:
        """The decisions a person made here (after episode s.t - 1) in the run ahead, made again as they
        were (who, reason, an edit's object), with the standing rules set here: a headless resume has
        nobody to ask (ael_cli/resume_decisions.py). Whether any decision was made."""
        if self.tape is None:
            return False
        made = len(s.queue.audit)
        self._boundary(s, self.tape, None)
        return len(s.queue.audit) > made

    def departs(self, s: "Session") -> bool:
        """Whether a decision made here differs from the run ahead's: the next step leaves that run
        (a view says so at once, not one episode later)."""
        return self.tape is not None and self.tape.t > s.t and not self._audit_follows_tape(s)

    def _decided_as_tape(self, s: "Session", was: tuple | None, now: tuple, boundary: int | None = None) -> bool:
        """Whether what changed here (from the state `was`) is decisions alike the tape's (an undo
        decided again the same way), the standing rules and the approval mode as they were; with
        a `boundary`, the tape decided there too."""
        tape = self.tape
        return (tape is not None and was is not None and was[1:5] == now[1:5] and now[0] > was[0]
                and self._audit_follows_tape(s)
                and (boundary is None or any(a.episode == boundary for a in tape.audit)))

    def _audit_follows_tape(self, s: "Session") -> bool:
        audit, tape = s.queue.audit, self.tape.audit  # type: ignore[union-attr]
        return len(audit) <= len(tape) and all(decided_alike(a, b) for a, b in zip(audit, tape))

    def _diverge(self, t: int) -> None:
        """The run departs from the tape after episode t: what came later is another run."""
        self.tape = None
        self.drop_after(t)

    def _thin(self, now: int) -> None:
        """Drop every other checkpoint (never the start or the newest) and space them twice as far."""
        keys = [k for k in sorted(self.checkpoints) if not self.checkpoints[k].forced]
        for k in keys[:-1:2]:
            if k != now:
                del self.checkpoints[k]
        self.budget_s *= 2

    def drop_after(self, t: int) -> None:
        """Forget every checkpoint taken after episode t."""
        for k in [k for k in self.checkpoints if k > t]:
            del self.checkpoints[k]

    # ---------------------------------------------------------------- rewind
    def reach(self, s: "Session") -> int:
        """The furthest episode this timeline can go to."""
        return max(s.t, self.tape.t if self.tape is not None else 0)

    def check_replayable(self, s: "Session") -> None:
        """AELError unless going back can give the same run again (no live model plays it)."""
        cfg = s.llm.config
        if cfg.uses_llm and not cfg.replay:
            raise AELError(f"this session is played by a model ({s.backend}): going back would ask it again "
                           "and get other answers; record a cassette (--record) and replay from it")

    def _restore(self, s: "Session", cp: Checkpoint, history: list[dict[str, Any]]) -> None:
        d = pickle.loads(cp.blob)
        d["history"] = history[: cp.history_len]
        s.load_state(d, keep_usage=True)
        self._post_signature = self.signature(s)
        self._spent = 0.0

    def follow(self, s: "Session", tape: Tape, checkpoints: dict[int, Checkpoint], n: int,
               restore_from: int | None) -> None:
        """Put `s` at the start of episode n of the run `tape` records, under `checkpoints`:
        restored from the checkpoint at `restore_from` (None: go on from where `s` stands,
        which the caller has shown lies on that run), then replayed with the tape's decisions.
        The public way to follow a run (an explanation's replica does)."""
        self.checkpoints, self.tape, self.diverged_at = dict(checkpoints), tape, None
        if restore_from is not None:
            self._restore(s, checkpoints[restore_from], tape.history)
        self._replay(s, n, tape)

    def snapshot(self, s: "Session") -> tuple:
        """The session and this timeline now, for `put_back`."""
        d = s.to_dict()
        history = list(d.pop("history"))  # a copy: a step in the block appends to the session's own list
        d.pop("usage", None)
        # the memory's entries, kept as they are rather than copied by pickle (most of a snapshot's
        # bytes: a proposal's preview takes one per episode): `to_dict` gives each entry a fresh row,
        # whose values are numbers, strings and a metadata dict the store never changes in place
        # (engine/memory.py, MemoryEntry), so nothing done in the block can reach them
        tiers = d["memory"].pop("tiers")
        return (pickle.dumps(d, protocol=pickle.HIGHEST_PROTOCOL), history, tiers, self.tape, dict(self.checkpoints),
                self.budget_s, self._post_signature, self._spent)

    def put_back(self, s: "Session", snap: tuple) -> None:
        blob, history, tiers, self.tape, self.checkpoints, self.budget_s, self._post_signature, self._spent = snap
        d = pickle.loads(blob)
        d["history"] = history
        d["memory"]["tiers"] = tiers
        s.load_state(d, keep_usage=True)
        self._flip, self.diverged_at = {}, None

    @contextmanager
    def atomic(self, s: "Session") -> Iterator[None]:
        """Everything in the block, or nothing: on an error the session and this timeline are put
        back as they were (a rewind that cannot replay leaves no half-replayed session)."""
        if self._atomic:
            yield
            return
        snap = self.snapshot(s)
        self._atomic = True
        try:
            yield
        except BaseException:
            self.put_back(s, snap)
            raise
        finally:
            self._atomic = False

    @contextmanager
    def preserved(self, s: "Session") -> Iterator[None]:
        """Whatever the block does (a rewind, a step), the session and this timeline are put back
        as they were after it (explain re-runs an episode this way)."""
        if self._atomic:
            raise AELError("a time-travel block is already running on this session")
        snap = self.snapshot(s)
        self._atomic = True  # the rewinds inside need no snapshot of their own
        try:
            yield
        finally:
            self._atomic = False
            self.put_back(s, snap)

    def rewind(self, s: "Session", n: int) -> None:
        """The session as it stood at the start of episode n (the decisions made there included)."""
        with self.atomic(s):
            self._rewind(s, n)

    def _rewind(self, s: "Session", n: int) -> None:
        self.check_replayable(s)
        reach = self.reach(s)
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= reach:
            raise AELError(f"episode {n} is out of range: this run can go to 0..{reach}")
        if self.tape is None or s.t > self.tape.t:
            self.tape = Tape.of(s)
        tape = self.tape
        self.diverged_at = None
        start = max(k for k in self.checkpoints if k <= n)
        self._restore(s, self.checkpoints[start], tape.history)
        self._replay(s, n, tape)

    def step_along(self, s: "Session") -> None:
        """After a rewind: one episode forward along the run that was, then the decisions a
        person made after it there (engine/preview.py replays a window this way)."""
        tape = self.tape
        if tape is None:
            raise AELError("nothing to step along: rewind to an earlier episode first")
        s.step()
        self._boundary(s, tape, None)

    def _replay(self, s: "Session", n: int, tape: Tape, known_ids: int | None = None) -> str | None:
        """Step to episode n, making at each boundary the decisions the tape made there.
        Returns why it stopped short of n (a proposal nobody decided), else None."""
        while True:
            self._boundary(s, tape, known_ids)
            if s.t >= n:
                return None
            reason = s.blocked_reason
            if reason is not None:
                return reason
            s.step()
            if self.diverged_at is not None and known_ids is None:
                raise AELError(f"replay differs from the run at episode {self.diverged_at}: something changed "
                               "outside the audit log (this run cannot be replayed exactly)")

    def _boundary(self, s: "Session", tape: Tape, known_ids: int | None) -> None:
        """The decisions a person made between episode s.t - 1 and s.t in the tape, made again."""
        e = s.t - 1
        q = s.queue
        before = self._post_signature  # decisions do not move it: it is the state the step left
        for entry in tape.decided_after(e):
            if entry.proposal_id == 0:  # a code arm admitted or rejected after a load
                if entry.decision in ("admit", "reject") and entry.proposed.get("name") in s.code_arms.quarantined:
                    s.review_code_arm(entry.proposed["name"], entry.decision, who=entry.who, reason=entry.reason)
                    q.audit[-1].at = entry.at
                continue
            if entry.decision not in HUMAN_DECISIONS or (known_ids is not None and entry.proposal_id > known_ids):
                continue
            if entry.proposal_id in self._flip:
                continue
            try:
                p = q.get(entry.proposal_id)
            except AELError:
                continue
            if p.status != "pending" or p.kind != entry.kind or p.payload != entry.proposed:
                continue
            s.decide(p.id, entry.decision, edited=entry.accepted if entry.decision == "edit" else None,
                     reason=entry.reason, who=entry.who)
            q.audit[-1].at = entry.at
        self._decide_flips(s)
        for i, r in enumerate(tape.rules):  # standing rules set here, then those revoked here
            if i >= len(q.rules) and r["episode"] == e:
                q.set_standing(r["kind"], r["rule"], who=r["who"], episode=e)
                q.rules[-1].at = r["at"]
        for i, r in enumerate(tape.rules):
            if i < len(q.rules) and r["revoked_episode"] == e:
                if q.rules[i].active:
                    q.set_standing(r["kind"], None, who=r["revoked_by"], episode=e)
                q.rules[i].revoked_at = r["revoked_at"]
        now = self.signature(s)
        if before is not None and now != before and s.t not in self.checkpoints:
            self.capture(s, forced=True)  # as the run that was had one here: the replay made its changes
        self._post_signature = now

    # ---------------------------------------------------------------- branch
    def branch(self, s: "Session", n: int, decide: dict[int, str], who: str = "human") -> str | None:
        """Rewind to n with the decisions on the proposals in `decide` taken the other way.
        Returns why the branch stopped short of n (a proposal nobody decided), else None."""
        with self.atomic(s):
            return self._branch(s, n, decide, who)

    def _branch(self, s: "Session", n: int, decide: dict[int, str], who: str) -> str | None:
        self.check_replayable(s)
        reach = self.reach(s)
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= reach:
            raise AELError(f"episode {n} is out of range: this run can go to 0..{reach}")
        if not decide:
            self._rewind(s, n)
            return None
        tape = self._tape_of(s)
        found: dict[int, AuditEntry] = {}
        for pid, decision in decide.items():
            if decision not in ("approve", "reject"):
                raise AELError(f"proposal #{pid}: decide approve or reject, not {decision!r}")
            entry = self._decided(tape, pid)
            was = "reject" if entry.decision == "reject" else "approve"
            if was == decision:
                raise AELError(f"proposal #{pid} was already {DECIDED_AS[entry.decision]} (after episode "
                               f"{entry.episode}): nothing to branch on")
            found[pid] = entry
        first = min(a.episode for a in found.values())
        later = [pid for pid, a in found.items() if a.episode > first]
        if later:
            raise AELError(f"proposal #{later[0]} was decided after the first decision changed here "
                           f"(episode {first}): branch once, then branch again from the branch")
        # an episode before the decision: replayed to it and decided otherwise there, as the lab
        # does when a person goes back and decides again (the branch starts where the decision came)
        return self._take(s, tape, first, max(n, first + 1), dict(decide), who)

    def reopen(self, s: "Session", pid: int) -> None:
        """Undo the decision on proposal `pid`: the session goes back to the moment it waited for
        one (the start of the episode after the one it came at), the proposal pending again."""
        with self.atomic(s):
            self._reopen(s, pid)

    def _reopen(self, s: "Session", pid: int) -> None:
        self.check_replayable(s)
        tape = self._tape_of(s)
        entry = self._decided(tape, pid)
        self._take(s, tape, entry.episode, entry.episode + 1, {pid: None}, "human")
        if s.t < tape.t:  # until it is decided otherwise, the run that was lies ahead (before_step checks)
            self.tape = tape

    def _tape_of(self, s: "Session") -> Tape:
        if self.tape is None or s.t > self.tape.t:
            self.tape = Tape.of(s)
        return self.tape

    @staticmethod
    def _decided(tape: Tape, pid: int) -> "AuditEntry":
        entries = [a for a in tape.audit if a.proposal_id == pid and pid > 0]
        if not entries:
            raise AELError(f"no proposal #{pid} in this run's audit log")
        entry = entries[-1]
        if entry.decision not in HUMAN_DECISIONS:
            raise AELError(f"proposal #{pid} was not decided but {entry.decision}ped by the {entry.who} "
                           f"({entry.reason or 'no reason given'}): it cannot be decided another way")
        return entry

    def _take(self, s: "Session", tape: Tape, first: int, n: int, flips: dict[int, str | None],
              who: str) -> str | None:
        """Replay to the end of episode `first`, decide the proposals in `flips` there (None:
        leave it pending), then on to n."""
        self.diverged_at = None
        start = max(k for k in self.checkpoints if k <= first)
        self._restore(s, self.checkpoints[start], tape.history)
        self._replay(s, first, tape)  # up to the start of the episode after which the decision came
        self._flip = flips
        self._who = who
        s.step()  # the proposals in `flips` wait for the branch's decision (person_decided)
        known = len(s.queue.proposals)  # proposals made so far are the original's; later ones may not be
        self.tape = None  # the branch is the run now: what came after its change is another run
        self.drop_after(first)
        try:
            return self._replay(s, n, tape, known_ids=known)
        finally:
            self._flip = {}
            self.diverged_at = None

    def _decide_flips(self, s: "Session") -> None:
        for pid, decision in list(self._flip.items()):
            try:
                p = s.queue.get(pid)
            except AELError:
                continue
            if p.status == "pending" and decision is None:  # reopened: a person decides it again
                del self._flip[pid]
            elif p.status == "pending":
                now, was = ("approved", "rejected") if decision == "approve" else ("rejected", "approved")
                s.decide(pid, decision, who=self._who,
                         reason=f"branch: {now} here, where the run it came from {was} it")
                del self._flip[pid]


DECIDED_AS = {"approve": "approved", "edit": "approved as edited", "reject": "rejected"}


def detached(s: "Session") -> "Callable[[], Session]":
    """A copy of `s` to replay on while `s` stays as it is (a preview in the lab, beside the live
    session): call this under the lock that guards `s` (it takes the session's state, its
    checkpoints and the run ahead, each immutable or copied); the function it returns builds
    the copy, outside the lock. The copy goes back exactly as `s` would."""
    s.timeline.check_replayable(s)
    blob = pickle.dumps(s.to_dict(), protocol=pickle.HIGHEST_PROTOCOL)
    checkpoints = dict(s.timeline.checkpoints)  # a checkpoint is a saved state: shared, never changed
    tape = s.timeline.tape
    ahead = tape.copy() if tape is not None else None
    session_class, world = type(s), type(s.scenario)

    def build() -> "Session":
        copy = session_class.from_dict(pickle.loads(blob), lambda name, seed, options: world(seed, **options))
        copy.timeline.checkpoints, copy.timeline.tape = dict(checkpoints), ahead
        return copy

    return build
