"""A session's code-policy arms: where they run, when they stop being sampled.

`CodeArms.run` is what memory calls to retrieve under a code policy: it sends
the call to the session's sandboxed worker (`engine.sandbox.codeworker`, started on
the first call, restarted after a failure) with a wall-clock deadline. Three
things keep an arm from running:

- **quarantine**: every code arm of a session loaded from a file starts
  quarantined and stays so until a person admits it again, having seen its
  source and SHA-256 (the lab's review dialog, or `--trust-code` in the CLI).
  Quarantine is not saved: every load starts there.
- **suspension**: after `suspend_after` failed calls in a row (overrun, crash,
  error, a bad answer) the arm is no longer sampled. Saved with the session.
- **a CPU budget**: a policy may use, over its last `CPU_WINDOW` (20) calls,
  at most `CPU_SHARE` (half) of the time those calls' deadlines allow: 5 s of
  the worker's CPU per 20 calls with the 0.5 s deadline. One that needs more,
  even if every call is within its deadline (0.45 s of each 0.5 s), is
  suspended the same way, saying so: it would turn a run of seconds into one
  of minutes. Honest policies take milliseconds. The time is what the worker
  spent on the call (its CPU time, so a busy machine does not count against
  it); an overrun counts as its whole deadline. The window is not saved: a
  loaded session starts it afresh.
- **a CPU budget per run**: the window lets a policy take a little under half
  of each deadline for ever (0.2 s a call turned a run of 3.6 s into one of
  263 s). Over the whole run (the session in this process: not saved either),
  a policy may use `RUN_CPU_FLOOR_S` (5 s) of CPU, or `RUN_CPU_PER_CALL_S`
  (10 ms) a call on average once it has made more than 500 calls; more, and it
  is suspended the same way, saying so. Honest policies measured on the
  support world, sampled on every one of 1,160 episodes, used 1.1-1.7 s in
  all (1-1.5 ms a call, 10 ms at most).
- **one failure per episode**: once a call has failed in an episode, further
  calls of that arm in the same episode fail at once, so a policy that loops
  forever costs at most one deadline per episode, however often a scenario
  retrieves per episode.

A failed call retrieves nothing; the session then uses the policy's declared
fallback, and marks the episode in the history.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Sequence

from .rules import CALL_DEADLINE_S, CodePolicyError

SUSPEND_AFTER = 3
CPU_WINDOW = 20    # calls of one policy over which its CPU time is summed
CPU_SHARE = 0.5    # of the time the window's deadlines allow: more, and the policy is suspended
RUN_CPU_FLOOR_S = 5.0      # CPU seconds any policy may use in a run
RUN_CPU_PER_CALL_S = 0.01  # and on average per call, in a run long enough for that to be more


class CodeArms:
    def __init__(self, deadline_s: float = CALL_DEADLINE_S, suspend_after: int = SUSPEND_AFTER,
                 run_cpu_floor_s: float = RUN_CPU_FLOOR_S, run_cpu_per_call_s: float = RUN_CPU_PER_CALL_S):
        self.deadline_s = deadline_s
        self.suspend_after = suspend_after
        self.run_cpu_floor_s = run_cpu_floor_s
        self.run_cpu_per_call_s = run_cpu_per_call_s
        self.failures: dict[str, int] = {}        # consecutive failed calls per arm (saved)
        self.suspended: dict[str, str] = {}       # arm -> why it is no longer sampled (saved)
        self.quarantined: dict[str, str] = {}     # arm -> SHA-256 of its source (never saved)
        self.saved_auto_admission = False         # the loaded file asked to admit code automatically
        self.failed_now: dict[str, str] = {}      # arm -> why its call failed in this episode
        self.spent: dict[str, deque[float]] = {}  # arm -> seconds its last CPU_WINDOW calls took (not saved)
        self.run_spent: dict[str, tuple[int, float]] = {}  # arm -> (calls, CPU seconds) in this run (not saved)
        self.over_budget: dict[str, str] = {}     # arm -> why it went over its CPU budget (until suspended)
        self.worker = None                        # a CodeWorker, from the first call on

    @property
    def unavailable(self) -> frozenset[str]:
        """Arms the selector must not sample."""
        return frozenset(self.suspended) | frozenset(self.quarantined)

    def run(self, spec: Any, entries: Sequence[Any], query: dict[str, Any]) -> list[Any]:
        """The entries the code policy `spec` picks; `CodePolicyError` when it may not run or failed."""
        # The sandbox's modules load on the first code-policy call, not with every session:
        # most sessions never run code, and the lab's start-up should not pay for it.
        from .codepolicy import source_hash
        from .codeworker import CodePolicyFailure, CodeWorker

        name = spec.name
        barred = ("quarantined until a person admits it" if name in self.quarantined else
                  f"suspended: {self.suspended[name]}" if name in self.suspended else "")
        if barred:  # chosen anyway (a fixed selector, the oracle): the history says why nothing came back
            self.failed_now.setdefault(name, f"not run: {barred}")
            raise CodePolicyError(f"code policy {name!r} is {barred}")
        if name in self.failed_now:
            raise CodePolicyError(f"code policy {name!r} already failed in this episode")
        if self.worker is None:
            self.worker = CodeWorker()
        try:
            chosen = self.worker.call(source_hash(spec.code), spec.code, entries, query, self.deadline_s)
        except CodePolicyFailure as failure:
            self.failed_now[name] = str(failure)
            self.failures[name] = self.failures.get(name, 0) + 1
            self._spend(name, self.deadline_s if failure.kind == "timeout" else self.worker.last_cpu_s)
            raise
        self.failures.pop(name, None)
        self._spend(name, self.worker.last_cpu_s)
        return chosen

    def _spend(self, name: str, seconds: float) -> None:
        """Count one call's time against the arm's CPU budgets: its window's, and its run's."""
        seconds = max(0.0, float(seconds))
        window = self.spent.setdefault(name, deque(maxlen=CPU_WINDOW))
        window.append(seconds)
        budget = CPU_SHARE * self.deadline_s * CPU_WINDOW
        total = sum(window)
        if total > budget and name not in self.suspended:
            n = len(window)
            self.over_budget[name] = (
                f"its last {n} calls took {total:.2f} s of CPU, {total / n:.2f} s of the {self.deadline_s:g} s "
                f"each may take: over its budget of {CPU_SHARE:.0%} of that ({budget:g} s per {CPU_WINDOW} calls)")
        calls, used = self.run_spent.get(name, (0, 0.0))
        calls, used = calls + 1, used + seconds
        self.run_spent[name] = (calls, used)
        allowed = max(self.run_cpu_floor_s, self.run_cpu_per_call_s * calls)
        # rounded: the worker measures to the millisecond, and 25 calls of 0.2 s add up to 5.000000000000002
        if round(used, 6) > allowed and name not in self.suspended and name not in self.over_budget:
            self.over_budget[name] = (
                f"its {calls} calls in this run took {used:.2f} s of CPU ({used / calls:.3f} s a call): over its "
                f"budget for a run of {self.run_cpu_floor_s:g} s, or {self.run_cpu_per_call_s * 1000:g} ms a call "
                f"in a longer one")

    def begin_episode(self) -> None:
        self.failed_now = {}

    def due_for_suspension(self) -> list[str]:
        """Arms that have just reached `suspend_after` failures in a row, or gone over their CPU budget."""
        due = [n for n, k in self.failures.items() if k >= self.suspend_after and n not in self.suspended]
        return due + [n for n in self.over_budget if n not in self.suspended and n not in due]

    def suspension_reason(self, name: str) -> str:
        """Why an arm `due_for_suspension` is suspended (what the notice and the audit log say)."""
        if self.failures.get(name, 0) >= self.suspend_after:
            last = self.failed_now.get(name, "an earlier call")
            return f"{self.failures[name]} calls in a row failed (last: {last})"
        return self.over_budget.get(name, "it went over its CPU budget")

    def close(self) -> None:
        """Stop the worker (the next call starts a new one)."""
        if self.worker is not None:
            self.worker.close()
            self.worker = None

    def to_dict(self) -> dict[str, Any]:
        return {"failures": dict(self.failures), "suspended": dict(self.suspended)}

    def load_dict(self, d: dict[str, Any] | None) -> None:
        d = d or {}
        self.failures = {str(k): int(v) for k, v in dict(d.get("failures", {})).items()}
        self.suspended = {str(k): str(v) for k, v in dict(d.get("suspended", {})).items()}
        self.failed_now = {}
        self.spent, self.over_budget, self.run_spent = {}, {}, {}


def run_function(arms: CodeArms, contract_name: str, source: str, args: tuple) -> Any:
    """One live call of another contract's code (engine/sandbox/contracts.py) in the session's
    sandboxed worker, within the arms' deadline; the answer checked by the contract.
    Raises `CodePolicyError` (a `CodePolicyFailure` when the call itself failed)."""
    from .contracts import contract
    from .codepolicy import source_hash
    from .codeworker import CodeWorker

    wanted = contract(contract_name)
    if arms.worker is None:
        arms.worker = CodeWorker()
    answer = arms.worker.call_function(source_hash(source), source, wanted.name, args, arms.deadline_s)
    return wanted.check(answer, args)
