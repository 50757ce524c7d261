"""Code policies in a session: a runaway costs one deadline per episode, three in a
row suspend the arm, and code from a file waits for a person (lab) or --trust-code (CLI)."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import pytest

from ael_cli.main import main
from engine import events as ev
from engine.sandbox.codearms import CodeArms
from engine.sandbox.codepolicy import CodePolicyError, entry_rows, source_hash
from engine.sandbox.codeworker import CodeWorker
from engine.errors import AELError
from engine.store.persistence import load_session, save_session
from engine.results import run_result
from scenarios import make_scenario
from tests.unit.test_code_policy_session import WINNERS, ProposesCode, session_with

# Behaves while the memory holds only early episodes (so it passes the smoke test
# at episode 40), then loops for ever: what a time bomb looks like live.
TIME_BOMB = '''def retrieve(entries, query):
    if max([e["episode"] for e in entries] + [0]) >= 60:
        n = 1000000
        for i in range(n * n):
            pass
    return entries[-3:]
'''
LOOP = "def retrieve(entries, query):\n    n = 1000000\n    for i in range(n * n):\n        pass\n    return []\n"


def admitted(code: str, deadline_s: float = 0.2, **policy):
    """A support session whose code arm `winners` was approved at episode 40 and is
    all but certain to be sampled from then on."""
    s = session_with(code, approval="manual")
    s.code_arms.deadline_s = deadline_s
    s.run()
    p = s.queue.pending[0]
    if policy:
        s.decide(p.id, "edit", edited={**p.payload, **policy})
    else:
        s.decide(p.id, "approve")
    s.selector.arms[s.selector.index("winners")].alpha = 1e6
    return s


def test_a_runaway_costs_one_deadline_per_episode_then_its_arm_is_suspended():
    s = admitted(TIME_BOMB, fallback="compressed")
    started = time.monotonic()
    seen: list[ev.Event] = s.run(until=70)  # the events of every step, in order
    assert time.monotonic() - started < 30  # a hang guard, not a benchmark: three deadlines of 0.2 s
    failed = [r for r in s.history if "code_failure" in r]
    assert [r["episode"] for r in failed] == [61, 62, 63]
    assert all(r["code_failure"]["fallback"] == "compressed" for r in failed)
    assert "did not finish within 0.2 s" in failed[0]["code_failure"]["errors"]["winners"]
    assert "winners" in s.code_arms.suspended
    assert all(r["policy"] != "winners" for r in s.history[64:])  # suspended: no longer sampled
    [suspended] = [e for e in seen if isinstance(e, ev.CodeArmSuspended)]
    assert suspended.arm == "winners" and suspended.episode == 63
    [audit] = [a for a in s.queue.audit if a.decision == "suspend"]
    assert audit.who == "engine" and audit.code_sha256 == source_hash(TIME_BOMB)
    result = run_result(s)
    assert result["code_failures"] == 3 and result["code_suspended"] == ["winners"]


def test_calls_after_a_failure_in_the_same_episode_do_not_wait_again():
    # a scenario may retrieve many times per episode (the portfolio: once per ticker)
    arms = CodeArms(deadline_s=0.2)
    spec = SimpleNamespace(name="loop", code=LOOP)
    rows = entry_rows([{"id": "a"}])
    arms.begin_episode()
    for _ in range(10):
        with pytest.raises(CodePolicyError):
            arms.run(spec, rows, {})
    assert arms.failures == {"loop": 1} and arms.worker.starts == 1
    arms.close()


def test_a_failed_worker_is_replaced_and_the_next_call_works():
    worker = CodeWorker()
    good = "def retrieve(entries, query):\n    return entries[:1]\n"
    with pytest.raises(CodePolicyError, match="did not finish"):
        worker.call(source_hash(LOOP), LOOP, entry_rows([{"id": "a"}]), {}, 0.2)
    assert [e.id for e in worker.call(source_hash(good), good, entry_rows([{"id": "a"}]), {}, 5.0)] == ["a"]
    assert worker.starts == 2
    worker.close()


def test_the_worker_state_stays_out_of_saves_and_a_resume_is_exact(tmp_path):
    s = admitted(WINNERS)
    s.run(until=60)
    save_session(s, tmp_path / "mid.json")
    assert "worker" not in json.dumps(json.loads((tmp_path / "mid.json").read_text())["session"].get("code_arms", {}))
    s.run()
    loaded = load_session(tmp_path / "mid.json", make_scenario)
    loaded.reflector = ProposesCode(WINNERS)
    loaded.reflector.done = True
    loaded.review_code_arm("winners", "admit")
    loaded.run()
    assert loaded.history == s.history


# ------------------------------------------------------------------ quarantine


@pytest.fixture
def saved_with_code(tmp_path):
    s = admitted(WINNERS)
    s.run(until=50)
    path = tmp_path / "shared.json"
    save_session(s, path)
    return path


def test_a_loaded_code_arm_is_quarantined_until_a_person_admits_it(saved_with_code):
    s = load_session(saved_with_code, make_scenario)
    assert s.code_arms.quarantined == {"winners": source_hash(WINNERS)}
    with pytest.raises(AELError, match="quarantined"):
        s.step()
    s.review_code_arm("winners", "admit", who="human")
    [entry] = [a for a in s.queue.audit if a.decision == "admit"]
    assert entry.who == "human" and entry.code_sha256 == source_hash(WINNERS)
    s.step()


def test_a_rejected_code_arm_is_never_sampled(saved_with_code):
    s = load_session(saved_with_code, make_scenario)
    s.review_code_arm("winners", "reject")
    s.run(until=70)
    assert "winners" in s.code_arms.suspended and all(r["policy"] != "winners" for r in s.history[50:])


def test_every_admitted_code_policy_has_its_hash_in_the_audit_log():
    s = admitted(WINNERS)
    [approval] = [a for a in s.queue.audit if a.kind == "arm"]
    assert approval.code_sha256 == source_hash(WINNERS)


def test_cli_resume_refuses_code_in_one_line_and_writes_nothing(saved_with_code, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(CodeWorker, "_start", lambda self: pytest.fail("a worker was started"))
    out = tmp_path / "out.json"
    assert main(["run", "support", "--resume", str(saved_with_code), "--json", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "winners" in err and "--trust-code" in err
    assert not out.exists()


def test_cli_resume_with_trust_code_runs_the_save_to_the_end(saved_with_code, tmp_path):
    out = tmp_path / "out.json"
    assert main(["run", "support", "--resume", str(saved_with_code), "--trust-code", "--json", str(out),
                 "--quiet"]) == 0
    assert json.loads(out.read_text())["runs"][0]["episodes"] == 120


@pytest.fixture
def saved_with_escape(saved_with_code, tmp_path):
    """The save, its code arm swapped for the attack the old gate let through: a long
    expression first (the walk stopped at depth 100), then a subclass walk."""
    doc = json.loads(saved_with_code.read_text())
    escape = "def retrieve(entries, query):\n    x = " + "[" * 99 + "1" + "]" * 99 + \
             "\n    return ().__class__.__base__.__subclasses__()\n"
    for p in doc["session"]["pool"]:
        if p["name"] == "winners":
            p["code"] = escape
    bad = tmp_path / "escape.json"
    bad.write_text(json.dumps(doc))
    return bad


def test_cli_resume_of_a_save_with_escaping_code_is_refused_even_with_trust_code(saved_with_escape, tmp_path,
                                                                                   capsys):
    out = tmp_path / "out.json"
    assert main(["run", "support", "--resume", str(saved_with_escape), "--trust-code", "--json", str(out),
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nested more than" in err and not out.exists()


def test_ael_lab_open_of_a_save_with_escaping_code_runs_and_writes_nothing(saved_with_escape, capsys, monkeypatch):
    import ael_tui.app

    monkeypatch.setattr(ael_tui.app.AelLab, "run", lambda self: pytest.fail("the lab opened"))
    monkeypatch.setattr(CodeWorker, "_start", lambda self: pytest.fail("a worker was started"))
    folder = sorted(saved_with_escape.parent.iterdir())
    assert main(["open", str(saved_with_escape)]) == 2
    assert "nested more than" in capsys.readouterr().err
    assert sorted(saved_with_escape.parent.iterdir()) == folder


def test_a_worker_that_cannot_start_is_a_failed_call_not_a_crash(monkeypatch):
    import engine.sandbox.codeworker

    def no_process(*args, **kwargs):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(engine.sandbox.codeworker.subprocess, "Popen", no_process)
    arms = CodeArms()
    arms.begin_episode()
    with pytest.raises(CodePolicyError, match="sandbox could not start"):
        arms.run(SimpleNamespace(name="p", code=WINNERS), entry_rows([{"id": "a"}]), {})
    assert arms.failures == {"p": 1}


def test_a_flood_of_an_answer_is_cut_off_before_it_fills_our_memory():
    worker = CodeWorker()
    flood = "def retrieve(entries, query):\n    return entries * 400\n"
    rows = entry_rows([{"id": f"entry{i}"} for i in range(1500)])
    try:
        with pytest.raises(CodePolicyError, match="answered more than 4 MB"):
            worker.call(source_hash(flood), flood, rows, {}, 10.0)
        assert worker.pid is None  # killed: its next answer cannot be trusted to line up
    finally:
        worker.close()


def test_a_policy_cannot_put_control_characters_in_what_the_lab_shows():
    # Python's own messages quote with repr; a worker past RestrictedPython could send raw text
    worker = CodeWorker(plain_python=True)
    source = "def retrieve(entries, query):\n    raise ValueError('\\x1b]0;pwned\\x07\\x1b[2J\\nline two')\n"
    try:
        with pytest.raises(CodePolicyError) as caught:
            worker.call("ctl", source, entry_rows([{"id": "a"}]), {}, 5.0)
    finally:
        worker.close()
    assert "pwned" in str(caught.value) and all(c.isprintable() for c in str(caught.value))


def test_a_save_cannot_grant_itself_automatic_admission_of_code(tmp_path, capsys):
    s = session_with(WINNERS, approval="auto", allow_code_auto=True)
    s.run(until=20)
    path = tmp_path / "auto.json"
    save_session(s, path)
    loaded = load_session(path, make_scenario)
    assert not loaded.queue.allow_code_auto  # off until someone vouches for the file
    loaded.trust_saved_code(who="test")
    assert loaded.queue.allow_code_auto
    assert main(["run", "support", "--resume", str(path), "--quiet"]) == 2
    assert "--allow-code-auto" in capsys.readouterr().err
    assert main(["run", "support", "--resume", str(path), "--trust-code", "--quiet"]) == 0


# ---------------------------------------------------------------------------
# each of the worker's two walls against files holds on its own (issue 27, finding 6)

READ_PASSWD = ("import os\ndef retrieve(entries, query):\n    os.closerange(2, 3)\n"
               "    fd = os.open('/etc/passwd', os.O_RDONLY)\n    raise ValueError(os.read(fd, 100))\n")


def child_with(tmp_path, monkeypatch, patch: str):
    """Run workers from a copy of the child with `patch` applied to its module before
    `main()`: one wall taken away, to show the other holds alone."""
    import engine.sandbox.codeworker as codeworker

    script = tmp_path / "child.py"
    script.write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('sandbox_child', {str(codeworker.CHILD)!r})\n"
        "child = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(child)\n"
        f"{patch}\nchild.main()\n")
    monkeypatch.setattr(codeworker, "CHILD", script)
    monkeypatch.setattr(codeworker, "notices", [])


def plain_call(source: str) -> str:
    worker = CodeWorker(plain_python=True)
    try:
        with pytest.raises(CodePolicyError) as caught:
            worker.call("probe", source, entry_rows([{"id": "a"}]), {}, 5.0)
    finally:
        worker.close()
    return str(caught.value)


def test_landlock_alone_keeps_files_out_of_reach_when_a_descriptor_is_free(tmp_path, monkeypatch):
    # the descriptor wall as it was (3: closing fd 2 frees a slot), so only Landlock stands
    child_with(tmp_path, monkeypatch,
               "real = child.resource.setrlimit\n"
               "child.resource.setrlimit = lambda which, v: real(which, (3, 3) if which == "
               "child.resource.RLIMIT_NOFILE else v)")
    said = plain_call(READ_PASSWD)
    assert "PermissionError" in said and "root:" not in said
    marker, victim = tmp_path / "made", tmp_path / "victim"
    tmp_path.chmod(0o777)
    victim.write_text("kept")
    victim.chmod(0o666)  # anyone may write it: only Landlock stops a truncate by path (no descriptor)
    said = plain_call(f"import os\ndef retrieve(entries, query):\n    os.truncate({str(victim)!r}, 0)\n")
    assert "PermissionError" in said and victim.read_text() == "kept"
    said = plain_call(f"import os\ndef retrieve(entries, query):\n    os.mkdir({str(marker)!r})\n")
    assert "PermissionError" in said and not marker.exists()


def test_without_landlock_the_descriptor_wall_still_holds_and_the_lab_is_told_once(tmp_path, monkeypatch):
    import engine.sandbox.codeworker as codeworker

    child_with(tmp_path, monkeypatch, "child._landlock = lambda libc: 'Landlock is not in this kernel (ENOSYS)'")
    with pytest.warns(codeworker.SandboxWarning, match="filesystem wall is unavailable on this kernel: Landlock"):
        said = plain_call(READ_PASSWD)
    assert "Too many open files" in said and "root:" not in said
    plain_call(READ_PASSWD)  # a second worker: the notice is not repeated
    assert codeworker.notices == ["the code sandbox's filesystem wall is unavailable on this kernel: "
                                  "Landlock is not in this kernel (ENOSYS)"]


def test_landlock_missing_from_the_kernel_is_a_reason_not_an_error(monkeypatch):
    import ctypes
    import errno
    import importlib.util

    import engine.sandbox.codeworker as codeworker

    spec = importlib.util.spec_from_file_location("sandbox_child_under_test", codeworker.CHILD)
    child = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(child)  # defines functions only: nothing is restricted here

    class NoLandlock:
        def __init__(self, err):
            self.err = err

        def syscall(self, *args):
            ctypes.set_errno(self.err)
            return -1

    assert child._landlock(NoLandlock(errno.ENOSYS)) == "Landlock is not in this kernel (ENOSYS)"
    assert child._landlock(NoLandlock(errno.EOPNOTSUPP)) .startswith("Landlock is disabled (EOPNOTSUPP")
    assert child._landlock(NoLandlock(errno.EPERM)).startswith("Landlock's system calls are refused (EPERM")
    with pytest.raises(OSError, match="landlock_create_ruleset"):  # anything else: no walls, no worker
        child._landlock(NoLandlock(errno.EFAULT))
    # the metadata filter knows its system calls by architecture; on another it says so
    assert child._seccomp(NoLandlock(errno.EINVAL), "sparc64") == "no table of system calls for sparc64"


# ---------------------------------------------------------------------------
# a CPU budget per code policy (issue 27, finding 7): just under the deadline, every time, is too much


class MeasuredWorker:
    """A worker stand-in whose every call is measured at `seconds` of CPU (a fake clock:
    no policy runs, nothing waits), answering the first entry it is given."""

    def __init__(self, seconds: float):
        self.last_cpu_s, self.seconds, self.calls = 0.0, seconds, 0

    def call(self, key, source, entries, query, deadline_s):
        self.calls += 1
        self.last_cpu_s = self.seconds
        return list(entries[:1])

    def close(self):
        pass


def test_a_policy_just_under_its_deadline_on_every_call_goes_over_its_cpu_budget():
    from engine.sandbox.codearms import CPU_SHARE, CPU_WINDOW

    arms = CodeArms(deadline_s=0.5)
    arms.worker = MeasuredWorker(0.45)
    spec, rows = SimpleNamespace(name="slow", code=WINNERS), entry_rows([{"id": "a"}])
    calls = 0
    while not arms.due_for_suspension():
        arms.begin_episode()
        assert [e.id for e in arms.run(spec, rows, {})] == ["a"]  # each call succeeds, within its deadline
        calls += 1
    assert CPU_SHARE == 0.5 and CPU_WINDOW == 20
    assert calls == 12  # 12 calls of 0.45 s: 5.40 s, over 5 s (half of 20 deadlines of 0.5 s)
    assert arms.due_for_suspension() == ["slow"] and arms.failures == {}
    assert arms.suspension_reason("slow") == (
        "its last 12 calls took 5.40 s of CPU, 0.45 s of the 0.5 s each may take: "
        "over its budget of 50% of that (5 s per 20 calls)")


@pytest.mark.parametrize("seconds, run_floor_s", [(0.002, 5.0), (0.24, 1000.0)])
def test_a_policy_within_its_cpu_budget_is_never_suspended(seconds, run_floor_s):
    # 0.24 s a call is within the window's budget; the run's (tested below) is set out of its way
    arms = CodeArms(deadline_s=0.5, run_cpu_floor_s=run_floor_s)
    arms.worker = MeasuredWorker(seconds)
    spec, rows = SimpleNamespace(name="quick", code=WINNERS), entry_rows([{"id": "a"}])
    for _ in range(200):
        arms.begin_episode()
        arms.run(spec, rows, {})
    assert arms.due_for_suspension() == [] and arms.worker.calls == 200


def test_overruns_count_as_their_whole_deadline_against_the_budget(monkeypatch):
    from engine.sandbox.codeworker import CodePolicyFailure

    class Overruns(MeasuredWorker):
        def call(self, *args):
            self.last_cpu_s = 0.0
            raise CodePolicyFailure("it did not finish within 0.5 s", "timeout")

    arms = CodeArms(deadline_s=0.5, suspend_after=1000)  # so only the budget can suspend it
    arms.worker = Overruns(0.0)
    spec, rows = SimpleNamespace(name="late", code=WINNERS), entry_rows([{"id": "a"}])
    for _ in range(10):
        arms.begin_episode()
        with pytest.raises(CodePolicyError):
            arms.run(spec, rows, {})
    assert arms.due_for_suspension() == []      # 10 x 0.5 s = 5 s: at the budget, not over it
    arms.begin_episode()
    with pytest.raises(CodePolicyError):
        arms.run(spec, rows, {})
    assert arms.due_for_suspension() == ["late"]


def test_a_session_suspends_a_policy_over_its_cpu_budget_and_says_why():
    s = admitted(WINNERS, deadline_s=0.5)
    s.code_arms.worker = MeasuredWorker(0.45)  # the live calls, measured at 0.45 s each
    seen: list[ev.Event] = s.run(until=120)
    [suspended] = [e for e in seen if isinstance(e, ev.CodeArmSuspended)]
    assert suspended.arm == "winners" and "over its budget of 50%" in suspended.reason
    assert "its last 12 calls took 5.40 s of CPU, 0.45 s of the 0.5 s each may take" in suspended.reason
    assert s.code_arms.worker.calls == 12
    assert s.code_arms.suspended["winners"] == suspended.reason
    after = [r for r in s.history if r["episode"] > suspended.episode]
    assert after and all(r["policy"] != "winners" for r in after)  # no longer sampled
    [audit] = [a for a in s.queue.audit if a.decision == "suspend"]
    assert audit.who == "engine" and audit.code_sha256 == source_hash(WINNERS)


# ---------------------------------------------------------------------------
# a CPU budget per run (trust, round four, finding 10): 0.2 s a call is within the window's
# budget for ever, and turned a run of 3.6 s into one of 263 s


def test_a_policy_that_burns_a_fifth_of_a_second_a_call_goes_over_its_run_s_budget():
    arms = CodeArms(deadline_s=0.5)
    arms.worker = MeasuredWorker(0.2)  # 4 s per 20 calls: under the window's 5 s
    spec, rows = SimpleNamespace(name="burner", code=WINNERS), entry_rows([{"id": "a"}])
    for _ in range(1000):  # 200 s of its CPU, had it really run
        if arms.due_for_suspension():
            break
        arms.begin_episode()
        arms.run(spec, rows, {})
    assert arms.due_for_suspension() == ["burner"] and arms.worker.calls == 26  # 5.2 s: over the run's 5 s
    assert arms.suspension_reason("burner") == (
        "its 26 calls in this run took 5.20 s of CPU (0.200 s a call): over its budget for a run of 5 s, "
        "or 10 ms a call in a longer one")


def test_an_honest_policy_in_a_long_run_stays_within_its_run_s_budget():
    arms = CodeArms(deadline_s=0.5)
    arms.worker = MeasuredWorker(0.009)  # several times what honest policies took (1-1.5 ms a call)
    spec, rows = SimpleNamespace(name="honest", code=WINNERS), entry_rows([{"id": "a"}])
    for _ in range(3000):  # 27 s in all: over the floor, within 10 ms a call
        arms.begin_episode()
        arms.run(spec, rows, {})
    assert arms.due_for_suspension() == []


def test_a_session_retires_a_policy_over_its_run_s_budget_and_goes_on():
    s = admitted(WINNERS, deadline_s=0.5)
    s.code_arms.worker = MeasuredWorker(0.2)
    seen: list[ev.Event] = s.run()  # to its end: 120 episodes
    [suspended] = [e for e in seen if isinstance(e, ev.CodeArmSuspended)]
    assert suspended.arm == "winners" and "over its budget for a run of 5 s" in suspended.reason
    assert s.code_arms.worker.calls == 26 and s.t == 120  # retired, and the run went on to its end
    after = [r for r in s.history if r["episode"] > suspended.episode]
    assert after and all(r["policy"] != "winners" for r in after)
    [audit] = [a for a in s.queue.audit if a.decision == "suspend"]
    assert audit.who == "engine" and audit.reason == suspended.reason


def test_the_worker_measures_each_call_s_own_cpu_time():
    worker = CodeWorker()
    busy = ("def retrieve(entries, query):\n    n = 0\n    for i in range(3000000):\n"
            "        n += 1\n    return entries[:1]\n")
    quick = "def retrieve(entries, query):\n    return entries[:1]\n"
    rows = entry_rows([{"id": "a"}])
    try:
        worker.call(source_hash(quick), quick, rows, {}, 30.0)
        quick_s = worker.last_cpu_s
        worker.call(source_hash(busy), busy, rows, {}, 30.0)
        busy_s = worker.last_cpu_s
        worker.call(source_hash(quick), quick, rows, {}, 30.0)
    finally:
        worker.close()
    # the worker's start-up (its imports) is not the first call's; a loop of 3e6 is far more than nothing
    assert quick_s < busy_s and worker.last_cpu_s < busy_s
