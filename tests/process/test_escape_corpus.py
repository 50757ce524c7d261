"""The escape corpus: every file in tests/process/escape_corpus/ is one attempt to get out.

Each attempt goes through the gates a real proposal meets (the static filter,
the smoke test, then live calls on more entries than the smoke test used and
on a query it never saw) and must end where its `# expect:` line says:

- static:   refused by the static filter;
- smoke:    passed it, refused by the smoke test;
- failed:   passed both, and its live calls failed (overran, crashed, bad answer);
- harmless: passed both and returned entries it was given.

Then it runs again as *plain Python with every builtin* in a worker whose
only defence is the process walls, as if both static checks (the AST filter
and RestrictedPython) had a hole. Both times it must be contained: nothing
created, removed, renamed or changed (content, mode, owner, times, extended
attributes) in a folder anyone may write (one in
/tmp, one in /dev/shm), no connection to a socket listening here, nothing
read comes back (the secret in this process's environment, a file anyone may
read, the names in a folder, /etc/passwd, the project's engine/secrets.py),
no process left in the worker's group, and the call back within its deadline
(no hang).

To add an attempt, add a file: `# escape: CATEGORY`, `# expect: OUTCOME`,
optionally `# walls: TEXT | TEXT` (what the plain-Python run's error must
say: proof that the attempt ran and met a wall, not a typo) and `# needs:
landlock` or `# needs: seccomp` (a wall only that builds: skipped, saying
so, where the sandbox reports it missing), then the source. `@MARKER@`, `@SHM_MARKER@`, `@FOLDER@`,
`@VICTIM@`, `@CANARY@`, `@PORT@`, `@SECRET@` and `@PROJECT@` are replaced by
a path to create in the /tmp folder, one in the /dev/shm folder, the /tmp
folder, a file anyone may write there, a file anyone may read there, the
listening port, the secret's variable name and the project's folder. A text
that comes back holding `ESCAPED` is an escape too.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import tempfile
import time
from pathlib import Path

import pytest

from engine.sandbox.codepolicy import CodePolicyError, check_source, entry_rows, smoke_test, source_hash
from engine.sandbox.codeworker import CodeWorker

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
              "writing files", "reading files", "environment", "network"}
PROJECT = Path(__file__).resolve().parents[2]
# the first line of each file an attempt may try to read: none may come back
PASSWD_LINE = Path("/etc/passwd").read_text().splitlines()[0]
SECRETS_LINE = (PROJECT / "engine" / "secrets.py").read_text().splitlines()[0]


def header(text: str) -> dict[str, str]:
    """The `# key: value` lines at the top of an attempt."""
    fields = {}
    for line in text.splitlines():
        if not line.startswith("# "):
            break
        key, _, value = line.lstrip("# ").partition(":")
        fields[key.strip()] = value.strip()
    return fields


def _files(folder: Path) -> dict[str, tuple]:
    """What is in `folder`, without following links: name -> (mode, owner, times,
    extended attributes, content of a regular file)."""
    found = {}
    for p in folder.iterdir():
        st = p.lstat()
        try:
            xattrs = sorted(os.listxattr(p, follow_symlinks=False))
        except OSError:  # a filesystem without them
            xattrs = []
        found[p.name] = (st.st_mode, st.st_uid, st.st_gid, st.st_mtime_ns, xattrs,
                         p.read_bytes() if p.is_file() and not p.is_symlink() else b"")
    return found


class Walls:
    """What an escape would touch, and the check that nothing was."""

    def __init__(self, monkeypatch):
        self.folder = Path(tempfile.mkdtemp(prefix="ael-escape-"))
        self.folder.chmod(0o777)  # writable by anyone: only the sandbox may stop the write
        self.marker = self.folder / "marker"
        shm = Path("/dev/shm")
        self.shm_folder = Path(tempfile.mkdtemp(prefix="ael-escape-", dir=shm if shm.is_dir() else None))
        self.shm_folder.chmod(0o777)
        self.shm_marker = self.shm_folder / "marker"
        self.victim = self.folder / "victim"          # anyone may write it, and the folder it is in
        self.victim.write_text("the victim's content")
        self.victim.chmod(0o666)
        self.canary_text = "canary-" + secrets.token_hex(8)
        self.canary = self.folder / "canary"          # anyone may read it
        self.canary.write_text(self.canary_text)
        self.canary.chmod(0o644)
        self.listed = "listed-" + secrets.token_hex(8)  # a name only a listing of the folder shows
        (self.folder / self.listed).write_text("")
        self.before = _files(self.folder)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.secret_name = "AEL_ESCAPE_SECRET"
        self.secret = "s3cret-" + secrets.token_hex(8)
        monkeypatch.setenv(self.secret_name, self.secret)

    def instantiate(self, text: str) -> str:
        for placeholder, value in (("@SHM_MARKER@", self.shm_marker), ("@MARKER@", self.marker),
                                   ("@FOLDER@", self.folder), ("@VICTIM@", self.victim), ("@CANARY@", self.canary),
                                   ("@PORT@", self.port), ("@SECRET@", self.secret_name), ("@PROJECT@", PROJECT)):
            text = text.replace(placeholder, str(value))
        return text

    def assert_contained(self, said: list[str], worker_pids: list[int], live_worker: int | None = None) -> None:
        assert not self.marker.exists(), "a file was written"
        assert _files(self.folder) == self.before, "a file was created, removed, renamed or changed"
        assert not list(self.shm_folder.iterdir()), "a file was created in /dev/shm"
        with pytest.raises(BlockingIOError):
            self.listener.accept()  # nobody connected
        for text in said:
            assert self.secret not in text, "the secret came back"
            assert self.canary_text not in text, "a readable file came back"
            assert self.listed not in text, "a folder's listing came back"
            assert PASSWD_LINE not in text, "/etc/passwd came back"
            assert SECRETS_LINE not in text, "engine/secrets.py came back"
            assert "ESCAPED" not in text, text
        for pid in worker_pids:
            others = [m for m in _members(pid) if m != live_worker]
            assert not others, f"a process of the worker's group {pid} survived"

    def close(self) -> None:
        self.listener.close()
        shutil.rmtree(self.folder, ignore_errors=True)
        shutil.rmtree(self.shm_folder, ignore_errors=True)


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
    worker.call("warm", "def retrieve(entries, query):\n    return []\n", [], {}, HANG_GUARD_S)  # its notices now
    yield worker
    worker.close()


def _walls_only(path: Path) -> str:
    """The attempt, after skipping it when it needs a wall this kernel cannot build."""
    import engine.sandbox.codeworker as codeworker

    text = path.read_text()
    wall = {"landlock": "filesystem wall", "seccomp": "file metadata"}.get(header(text).get("needs", ""))
    missing = [n for n in codeworker.notices if wall and wall in n]
    if missing:
        pytest.skip("a wall this attempt needs is missing here: " + missing[0])
    return text


def assert_met_a_wall(text: str, said: list[str]) -> None:
    """An attempt with a `# walls:` line ran (the gates really were off) and met one of the walls it names."""
    expected = header(text).get("walls")
    if expected:
        assert said and all(any(w.strip() in s for w in expected.split("|")) for s in said), said


def test_the_process_walls_alone_run_plain_python_with_every_builtin(plain_worker):
    # the static gates really are off: an import and a builtin the filter refuses both run
    probe = "import os\ndef retrieve(entries, query):\n    raise ValueError(os.name + repr(type(open)))\n"
    with pytest.raises(CodePolicyError, match="posix<class 'builtin_function_or_method'>"):
        plain_worker.call("probe", probe, entry_rows(SAMPLE), {}, 5.0)


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_an_escape_attempt_is_contained_by_the_process_walls_alone(path, walls, plain_worker):
    text = walls.instantiate(_walls_only(path))
    pids: list[int] = []
    started = time.monotonic()
    _, said = _calls(plain_worker, text, pids, LIVE_QUERIES[-1:])  # the regime no smoke test asked about
    assert time.monotonic() - started < HANG_GUARD_S
    walls.assert_contained(said, pids, live_worker=plain_worker.pid)
    assert_met_a_wall(text, said)


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

    from engine.sandbox.codeworker import _kill

    parent = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60"], process_group=0)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and len(_members(parent.pid)) < 3:
        time.sleep(0.02)
    assert len(_members(parent.pid)) == 3  # sh and its two sleeps
    _kill(parent, None)
    time.sleep(0.05)
    assert _members(parent.pid) == []


# ---------------------------------------------------------------------------
# every other contract (engine/sandbox/contracts.py) meets the same corpus

OTHER_CONTRACTS = ("allocate", "plan")


def as_contract(text: str, name: str) -> str:
    """The attempt as the contract's function: its header renamed, `entries` and `query`
    bound to the contract's arguments, so the attempt's body runs as written."""
    from engine.sandbox.contracts import contract

    wanted = contract(name)
    first = wanted.params[0]
    last = wanted.params[-1]
    return text.replace("def retrieve(entries, query):",
                        f"{wanted.signature}:\n    entries, query = {first}, {last}", 1)


def contract_gates(source: str, name: str, pids: list[int]) -> tuple[str, list[str]]:
    from engine.sandbox.contracts import contract
    from engine.sandbox.codepolicy import smoke_test_function

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
    from engine.sandbox.contracts import contract

    wanted = contract(contract_name)
    text = walls.instantiate(_walls_only(path))
    source = as_contract(text, contract_name)
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
    assert_met_a_wall(text, said)
