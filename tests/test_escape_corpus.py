"""The escape corpus: every file in tests/escape_corpus/ is one attempt to get out.

Each attempt goes through the gates a real proposal meets (the static filter,
the smoke test, then live calls on more entries than the smoke test used and
on a query it never saw) and must end where its `# expect:` line says:

- static:   refused by the static filter;
- smoke:    passed it, refused by the smoke test;
- failed:   passed both, and its live calls failed (overran, crashed, bad answer);
- harmless: passed both and returned entries it was given.

Then it runs again as *plain Python with every builtin* in a worker whose
only defence is the process walls, as if both static checks had a hole. Both
times it must be contained: no marker file written (in a folder anyone may
write), no connection to a socket listening here, the secret in this
process's environment never in anything that comes back, no process left in
the worker's group, and the call back within its deadline (no hang).

To add an attempt, add a file: `# escape: CATEGORY`, `# expect: OUTCOME`,
then the source. `@MARKER@`, `@PORT@` and `@SECRET@` are replaced by the
marker path, the listening port and the secret's variable name.
"""

from __future__ import annotations

import os
import secrets
import socket
import tempfile
import time
from pathlib import Path

import pytest

from engine.codepolicy import CodePolicyError, check_source, entry_rows, smoke_test, source_hash
from engine.codeworker import CodeWorker

CORPUS = sorted(Path(__file__).with_name("escape_corpus").glob("*.py"))
DEADLINE_S = 0.5
HANG_GUARD_S = 20.0  # far above any deadline here: only a hang reaches it
SAMPLE = [{"id": f"e{i}", "tier": "episodic", "content": f"note {i}", "quality": i / 10, "episode": i,
           "metadata": {"regime": "bull" if i % 2 else "bear"}} for i in range(8)]
# more entries than the smoke test's 1,500, later episodes, and a regime it never asked about
LIVE = [dict(SAMPLE[i % 8], id=f"live{i}", episode=2 * i) for i in range(3000)]
LIVE_QUERIES = [{"regime": "bull"}, {"regime": "crash"}]
CATEGORIES = {"deep nesting", "subclass walk", "globals and frames", "computed attribute", "decorators and lambdas",
              "unicode", "eval exec import", "time bomb", "memory and recursion", "fork and grandchildren",
              "writing files", "environment", "network"}


def header(text: str) -> dict[str, str]:
    fields = {}
    for line in text.splitlines()[:2]:
        key, _, value = line.lstrip("# ").partition(":")
        fields[key.strip()] = value.strip()
    return fields


class Walls:
    """What an escape would touch, and the check that nothing was."""

    def __init__(self, monkeypatch):
        self.folder = Path(tempfile.mkdtemp(prefix="ael-escape-"))
        self.folder.chmod(0o777)  # writable by anyone: only the sandbox may stop the write
        self.marker = self.folder / "marker"
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.secret_name = "AEL_ESCAPE_SECRET"
        self.secret = "s3cret-" + secrets.token_hex(8)
        monkeypatch.setenv(self.secret_name, self.secret)

    def instantiate(self, text: str) -> str:
        return (text.replace("@MARKER@", str(self.marker)).replace("@PORT@", str(self.port))
                .replace("@SECRET@", self.secret_name))

    def assert_contained(self, said: list[str], worker_pids: list[int], live_worker: int | None = None) -> None:
        assert not self.marker.exists(), "a file was written"
        with pytest.raises(BlockingIOError):
            self.listener.accept()  # nobody connected
        assert not any(self.secret in text for text in said), "the secret came back"
        for pid in worker_pids:
            others = [m for m in _members(pid) if m != live_worker]
            assert not others, f"a process of the worker's group {pid} survived"

    def close(self) -> None:
        self.listener.close()
        for p in self.folder.iterdir():
            p.unlink()
        self.folder.rmdir()


def _members(pgid: int) -> list[int]:
    """Live (not zombie) processes of the process group `pgid`."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


@pytest.fixture
def walls(monkeypatch):
    w = Walls(monkeypatch)
    yield w
    w.close()


def _calls(worker: CodeWorker, source: str, pids: list[int], queries=LIVE_QUERIES) -> tuple[bool, list[str]]:
    """Run the live calls; (every call answered, what came back)."""
    said, ok = [], True
    for query in queries:
        try:
            chosen = worker.call(source_hash(source), source, entry_rows(LIVE), query, DEADLINE_S)
            said.append(" ".join(e.id for e in chosen))
        except CodePolicyError as err:
            said.append(str(err))
            ok = False
        finally:
            if worker.last_pid is not None and worker.last_pid not in pids:
                pids.append(worker.last_pid)  # the process that answered, or was killed for not answering
    return ok, said


def through_the_gates(source: str, pids: list[int]) -> tuple[str, list[str]]:
    try:
        check_source(source, "attempt")
    except CodePolicyError as err:
        return "static", [str(err)]
    try:
        smoke_test(source, SAMPLE, {"regime": "bull"}, name="attempt", deadline_s=DEADLINE_S)
    except CodePolicyError as err:
        return "smoke", [str(err)]
    worker = CodeWorker()
    try:
        ok, said = _calls(worker, source, pids)
    finally:
        worker.close()
    return ("harmless" if ok else "failed"), said


def test_the_corpus_covers_every_category_the_issue_lists():
    seen = {header(p.read_text())["escape"] for p in CORPUS}
    assert len(CORPUS) >= 50 and CATEGORIES <= seen


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_an_escape_attempt_is_contained_by_the_gates(path, walls):
    text = walls.instantiate(path.read_text())
    pids: list[int] = []
    started = time.monotonic()
    outcome, said = through_the_gates(text, pids)
    assert time.monotonic() - started < HANG_GUARD_S
    walls.assert_contained(said, pids)
    assert outcome == header(text)["expect"], said


@pytest.fixture(scope="module")
def plain_worker():
    """One worker for the plain-Python runs: an attempt that breaks it gets a fresh one."""
    worker = CodeWorker(plain_python=True)
    yield worker
    worker.close()


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_an_escape_attempt_is_contained_by_the_process_walls_alone(path, walls, plain_worker):
    text = walls.instantiate(path.read_text())
    pids: list[int] = []
    started = time.monotonic()
    _, said = _calls(plain_worker, text, pids, LIVE_QUERIES[-1:])  # the regime no smoke test asked about
    assert time.monotonic() - started < HANG_GUARD_S
    walls.assert_contained(said, pids, live_worker=plain_worker.pid)


def test_the_worker_runs_with_no_environment_of_ours(walls):
    worker = CodeWorker(plain_python=True)
    probe = "import os\ndef retrieve(entries, query):\n    raise ValueError(sorted(os.environ))\n"
    try:
        with pytest.raises(CodePolicyError) as caught:
            worker.call("env", probe, entry_rows(SAMPLE), {}, 5.0)
    finally:
        worker.close()
    assert "AEL_ESCAPE_SECRET" in os.environ and "AEL_ESCAPE_SECRET" not in str(caught.value)
    assert "PYTHONHASHSEED" in str(caught.value)  # the probe did read the worker's environment


def test_killing_a_worker_takes_its_whole_process_group():
    # Policies cannot start processes (no fork: RLIMIT_NPROC), so make a group
    # with a grandchild by hand and kill it the way a worker is killed.
    import subprocess

    from engine.codeworker import _kill

    parent = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60"], process_group=0)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and len(_members(parent.pid)) < 3:
        time.sleep(0.02)
    assert len(_members(parent.pid)) == 3  # sh and its two sleeps
    _kill(parent, None)
    time.sleep(0.05)
    assert _members(parent.pid) == []


# ---------------------------------------------------------------------------
# every other contract (engine/code_contracts.py) meets the same corpus

OTHER_CONTRACTS = ("allocate", "plan")


def as_contract(text: str, name: str) -> str:
    """The attempt as the contract's function: its header renamed, `entries` and `query`
    bound to the contract's arguments, so the attempt's body runs as written."""
    from engine.code_contracts import contract

    wanted = contract(name)
    first = wanted.params[0]
    last = wanted.params[-1]
    return text.replace("def retrieve(entries, query):",
                        f"{wanted.signature}:\n    entries, query = {first}, {last}", 1)


def contract_gates(source: str, name: str, pids: list[int]) -> tuple[str, list[str]]:
    from engine.code_contracts import contract
    from engine.codepolicy import smoke_test_function

    try:
        check_source(source, "attempt", name)
    except CodePolicyError as err:
        return "static", [str(err)]
    try:
        smoke_test_function(source, name, name="attempt", deadline_s=DEADLINE_S)
    except CodePolicyError as err:
        return "smoke", [str(err)]
    wanted, worker, said, ok = contract(name), CodeWorker(), [], True
    try:
        for args in wanted.samples():
            try:
                said.append(str(wanted.check(worker.call_function(source_hash(source), source, wanted.name, args,
                                                                  DEADLINE_S), args)))
            except CodePolicyError as err:
                said.append(str(err))
                ok = False
            finally:
                if worker.last_pid is not None and worker.last_pid not in pids:
                    pids.append(worker.last_pid)
    finally:
        worker.close()
    return ("harmless" if ok else "failed"), said


@pytest.mark.parametrize("contract_name", OTHER_CONTRACTS)
@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_an_escape_attempt_is_contained_under_every_contract(path, contract_name, walls):
    text = walls.instantiate(path.read_text())
    source = as_contract(text, contract_name)
    pids: list[int] = []
    started = time.monotonic()
    outcome, said = contract_gates(source, contract_name, pids)
    assert time.monotonic() - started < HANG_GUARD_S
    walls.assert_contained(said, pids)
    if header(text)["expect"] == "static":   # what the filter refuses as a policy it refuses as any contract
        assert outcome == "static", said


@pytest.mark.parametrize("contract_name", OTHER_CONTRACTS)
@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_an_escape_attempt_under_every_contract_is_contained_by_the_process_walls_alone(
        path, contract_name, walls, plain_worker):
    from engine.code_contracts import contract

    wanted = contract(contract_name)
    source = as_contract(walls.instantiate(path.read_text()), contract_name)
    pids: list[int] = []
    said = []
    started = time.monotonic()
    try:
        said.append(str(plain_worker.call_function(source_hash(source), source, wanted.name, wanted.samples()[0],
                                                   DEADLINE_S)))
    except CodePolicyError as err:
        said.append(str(err))
    finally:
        if plain_worker.last_pid is not None:
            pids.append(plain_worker.last_pid)
    assert time.monotonic() - started < HANG_GUARD_S
    walls.assert_contained(said, pids, live_worker=plain_worker.pid)
