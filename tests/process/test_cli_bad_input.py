"""Bad arguments and bad output paths: one line on stderr, exit 2, nothing written.

The cases are those of issue 11 (seed lists, priors, episodes, negative
seeds, one path for two outputs, symlinks and devices as targets, --save over
a file that is not a session, a full disk, a closed pipe)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ael_cli.flags.values import MAX_SEEDS, parse_seeds
from ael_cli.main import main
from engine.errors import AELError
from engine.store.persistence import read_document, save_session
from tests.conftest import new_session

AEL_LAB = str(Path(sys.executable).parent / "ael-lab")


def refused(capsys, argv: list[str], words: str) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert words in err, err
    return err


def snapshot(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() and not p.is_symlink()
            else os.readlink(p) if p.is_symlink() else "?" for p in sorted(folder.iterdir())}


# ------------------------------------------------------------------ arguments
@pytest.mark.parametrize("argv, words", [
    (["run", "synthetic", "--seeds", "0..1000000000000"], f"more than {MAX_SEEDS:,} seeds"),
    (["run", "synthetic", "--seeds", "0..100000000"], f"more than {MAX_SEEDS:,} seeds"),
    (["run", "synthetic", "--seeds", ""], "--seeds: an empty item is not a seed"),
    (["run", "synthetic", "--seeds", "1,,2"], "--seeds: an empty item"),
    (["run", "synthetic", "--seeds", "-1"], "--seeds: seeds must be non-negative"),
    (["run", "synthetic", "--seeds", "1..5,3"], "a seed is listed twice"),
    (["run", "synthetic", "--prior", "nan,1"], "--prior: 'nan' is not a finite number"),
    (["run", "synthetic", "--prior", "inf,1"], "--prior: 'inf' is not a finite number"),
    (["run", "synthetic", "--prior", "0,1"], "--prior: '0,1' should be two finite positive numbers"),
    (["run", "synthetic", "--prior", "1"], "--prior: '1' should be"),
    (["run", "synthetic", "--episodes", "-5"], "--episodes: -5 is too small"),
    (["run", "synthetic", "--episodes", "0"], "--episodes: 0 is too small"),
    (["run", "synthetic", "--until", "-1"], "--until: -1 is too small"),
    (["run", "synthetic", "--split", "nan,0.2"], "--split: 'nan' is not a finite number"),
    (["run", "synthetic", "--reflect-threshold", "nan"], "--reflect-threshold: 'nan' is not a finite"),
    (["run", "synthetic", "--reflect-every", "0"], "--reflect-every: 0 is too small"),
    (["export-stream", "support", "--seed=-1"], "--seed: -1 is too small"),
    (["lab", "support", "--seed", "-1"], "--seed: -1 is too small"),
])
def test_a_bad_argument_is_refused_where_it_is_parsed(capsys, argv, words):
    refused(capsys, argv, words)


def test_the_seed_cap_is_counted_not_built():
    assert len(parse_seeds(f"1..{MAX_SEEDS}")) == MAX_SEEDS
    with pytest.raises(AELError, match="100,000"):
        parse_seeds(f"0..{MAX_SEEDS}")
    with pytest.raises(AELError, match="100,000"):  # would need terabytes if it were built first
        parse_seeds("0..1000000000000000000")


def test_seed_lists_still_parse():
    assert parse_seeds("1..3,42") == [1, 2, 3, 42]


# ------------------------------------------------------------------ output paths
@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    save_session(new_session(), tmp_path / "session.json")
    (tmp_path / "notes.txt").write_text("my notes\n")
    os.symlink(tmp_path / "notes.txt", tmp_path / "link.json")
    return tmp_path


@pytest.mark.parametrize("argv, words", [
    (["--json", "x.json", "--save", "x.json"], "--json and --save name the same file"),
    (["--json", "session.json", "--resume", "session.json"], "--json and --resume name the same file"),
    (["--json", "./sub/../x.json", "--save", "x.json", "--seeds", "1"], "name the same file"),
    (["--save", "link.json"], "it is a symbolic link"),
    (["--json", "link.json"], "it is a symbolic link"),
    (["--save", "/dev/null"], "not a regular file"),
    (["--json", "/dev/full"], "not a regular file"),
    (["--save", "."], "it is a folder"),
    (["--save", "notes.txt"], "notes.txt exists and is not an AEL Lab session"),
    (["--json", "session.json"], "session.json is an AEL Lab session"),
    (["--save", "no/such/folder/s.json"], "folder no/such/folder does not exist"),
])
def test_a_refused_output_is_one_line_and_nothing_changes(capsys, folder, argv, words):
    (folder / "sub").mkdir()
    before = snapshot(folder)
    refused(capsys, ["run", "synthetic", "--quiet", "--episodes", "5", *argv], words)
    assert snapshot(folder) == before
    assert os.path.islink(folder / "link.json")


def test_a_fifo_is_not_a_target(capsys, folder):
    os.mkfifo(folder / "pipe.json")
    refused(capsys, ["run", "synthetic", "--quiet", "--episodes", "5", "--json", "pipe.json"], "not a regular file")


def test_force_lets_save_replace_a_file_that_is_not_a_session(capsys, folder):
    assert main(["run", "synthetic", "--quiet", "--episodes", "5", "--save", "notes.txt", "--force"]) == 0
    assert read_document(folder / "notes.txt")["session"]["t"] == 5


def test_save_may_replace_a_session_and_continue_one_in_place(capsys, folder):
    assert main(["run", "synthetic", "--quiet", "--until", "30", "--save", "session.json"]) == 0
    assert main(["run", "synthetic", "--quiet", "--resume", "session.json", "--until", "40",
                 "--save", "session.json"]) == 0
    assert read_document(folder / "session.json")["session"]["t"] == 40


# ------------------------------------------------------------------ the process as a whole
def run_shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", f"set -o pipefail; {command}"], cwd=cwd, capture_output=True, text=True)


def test_a_full_disk_on_stdout_is_one_line_and_exit_2(tmp_path):
    for command in (f"{AEL_LAB} run synthetic --episodes 5 > /dev/full",
                    f"{AEL_LAB} export-stream support --seed 42 > /dev/full"):
        done = run_shell(command, tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr == "ael-lab: cannot write the output: No space left on device\n"


def test_a_closed_pipe_is_one_line_and_exit_2(tmp_path):
    done = run_shell(f"{AEL_LAB} export-stream support --seed 42 | head -c 100 > /dev/null", tmp_path)
    assert done.returncode == 2
    assert done.stderr == "ael-lab: output closed early (broken pipe)\n"


def test_open_on_a_bad_save_exits_non_zero_with_one_line(tmp_path):
    bad = Path(__file__).parent.parent / "bad_documents" / "sessions" / "alpha-is-the-string-NaN.json"
    done = subprocess.run([AEL_LAB, "open", str(bad)], cwd=tmp_path, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "session.selector.arms[0].alpha" in done.stderr
    assert done.stdout == "" and list(tmp_path.iterdir()) == []


def test_ael_lab_open_passes_on_a_crash_of_the_interface_as_its_exit_code(monkeypatch):
    """Textual shows a crash dump and sets return_code 1; `ael-lab open` must not exit 0 then."""
    from ael_tui import app as app_module

    def crashed(self):
        self._return_code = 1

    monkeypatch.setattr(app_module.AelLab, "run", crashed)
    good = Path(__file__).parent.parent / "bad_documents" / "good" / "session.json"
    assert main(["open", str(good)]) == 1


def test_an_engine_notice_is_one_line_on_stderr(capsys):
    """A sandbox wall this kernel lacks is said once, as one line (not Python's warning form)."""
    import warnings

    from ael_cli import main as cli
    from engine.sandbox.codeworker import SandboxWarning

    saved = warnings.showwarning
    try:
        warnings.showwarning = cli._notice_line
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = cli._notice_line
            warnings.warn("the code sandbox's filesystem wall is unavailable on this kernel: ENOSYS", SandboxWarning)
    finally:
        warnings.showwarning = saved
    err = capsys.readouterr().err
    assert err == "ael-lab: note: the code sandbox's filesystem wall is unavailable on this kernel: ENOSYS\n"


# ------------------------------------------------------------------ the save's bounds (issue 27, finding 8)
SEED_MAX = 2**63 - 1


@pytest.mark.parametrize("argv, words", [
    (["run", "synthetic", "--seeds", str(2**64)], f"--seeds: {2**64} is too large; a seed is at most {SEED_MAX}"),
    (["run", "synthetic", "--seeds", f"{SEED_MAX}..{SEED_MAX + 1}"], "--seeds: 9223372036854775808 is too large"),
    (["run", "synthetic", "--prior", "1e308,1e308"], "--prior: 1e+308 is too large; alpha and beta are at most 1e+12"),
    (["run", "synthetic", "--prior", "1,2e12"], "--prior: 2e+12 is too large"),
    (["run", "synthetic", "--episodes", str(2**53 + 1)], "--episodes: 9007199254740993 is too large"),
    (["run", "synthetic", "--warmup", str(2**53 + 1)], "--warmup: 9007199254740993 is too large"),
    (["run", "synthetic", "--reflect-every", str(2**60)], "--reflect-every: 1152921504606846976 is too large"),
    (["run", "synthetic", "--llm-timeout", "nan"], "--llm-timeout: 'nan' is not a finite number"),
    (["run", "synthetic", "--llm-timeout", "1e13"], "--llm-timeout: 1e+13 is outside (0, 1e+12]"),
    (["run", "synthetic", "--llm-retries", "11"], "--llm-retries: 11 is too large"),
    (["run", "synthetic", "--llm-context", str(10**9)], "--llm-context: 1000000000 is too large"),
    (["lab", "support", "--seed", str(2**63)], "--seed: 9223372036854775808 is too large"),
    (["lab", "support", "--reflect-threshold", "2"], "--reflect-threshold: 2 is outside 0..1"),
    (["lab", "support", "--reflect-every", "0"], "--reflect-every: 0 is too small"),
    (["export-stream", "support", "--seed", str(2**64)], "--seed: 18446744073709551616 is too large"),
    (["serve", "--seed", str(2**64)], "--seed: 18446744073709551616 is too large"),
])
def test_a_value_the_save_cannot_hold_is_refused_where_it_is_parsed(capsys, argv, words):
    refused(capsys, argv, words)


def test_the_largest_values_the_flags_accept_save_and_resume(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "synthetic", "--quiet", "--seeds", str(SEED_MAX), "--prior", "1e12,1e12",
                 "--until", "5", "--save", "s.json"]) == 0
    assert main(["run", "synthetic", "--quiet", "--resume", "s.json", "--until", "8", "--save", "s.json"]) == 0
    assert read_document(tmp_path / "s.json")["session"]["t"] == 8


def test_the_start_screen_refuses_a_seed_the_save_cannot_hold():
    from ael_tui.widgets.opening import NewSession, build_session

    with pytest.raises(AELError, match=f"seed: {2**64} is outside 0..{SEED_MAX}"):
        build_session(NewSession("synthetic", 2**64))
    with pytest.raises(AELError, match="seed: -1 is outside"):
        build_session(NewSession("synthetic", -1))


def test_the_flags_read_the_schemas_bounds():
    """One place: the schema's limits are the command line's (engine/limits.py)."""
    from engine import limits
    from engine.store.session_schema import Config, LLMSection

    def le(model, name):
        return next(m.le for m in model.model_fields[name].metadata if hasattr(m, "le"))

    assert le(Config, "seed") == limits.SEED_MAX
    assert le(LLMSection, "max_retries") == limits.RETRIES_MAX
    assert le(LLMSection, "timeout_s") == limits.POSITIVE_MAX


# ------------------------------------------------------------------ the small items (issue 27, finding 9)
def test_trust_code_without_resume_is_one_line_and_exit_2(capsys):
    refused(capsys, ["run", "synthetic", "--quiet", "--episodes", "3", "--trust-code"],
            "--trust-code: only with --resume")


@pytest.mark.parametrize("selector, words", [
    ("ts(prior=2", "--selector: unclosed parenthesis in 'ts(prior=2'"),
    ("ucb1,ts(prior=2,egreedy", "--selector: unclosed parenthesis in 'ts(prior=2,egreedy'"),
    ("ts)", "--selector: ')' without '(' in 'ts)'"),
])
def test_an_unbalanced_selector_says_so(capsys, selector, words):
    refused(capsys, ["run", "synthetic", "--quiet", "--episodes", "3", "--selector", selector], words)
