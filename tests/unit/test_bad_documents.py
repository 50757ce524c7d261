"""The bad-documents corpus (`tests/bad_documents/`), through the CLI and the lab's loaders.

Every case must give exit code 2 and one line on stderr that names the file
and the field (the words in `expected.json`), with no traceback and no file
changed; the lab's loaders raise the same one-line `AELError` (which the lab
shows as a notification) and leave the open session untouched.
"""

import hashlib
import json
from pathlib import Path

import pytest

from ael_cli.main import main
from ael_tui.config import load_keymap
from ael_tui.widgets.opening import NewSession, build_session, open_session
from engine.errors import AELError
from engine.llm import Cassette
from engine.store.persistence import load_session
from scenarios import make_scenario
from scenarios.portfolio.sources import load_market

CORPUS = Path(__file__).parent.parent / "bad_documents"
EXPECTED: dict[str, str] = json.loads((CORPUS / "expected.json").read_text())


def cases(kind: str) -> list[str]:
    return sorted(k for k in EXPECTED if k.startswith(kind + "/"))


def fingerprint(*folders: Path) -> dict[str, str]:
    """Every file under `folders` and its hash: what 'no file changed' compares."""
    out = {}
    for folder in folders:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def one_line_refusal(capsys, code: int, case: str) -> str:
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("ael-lab: "), err
    assert "Traceback" not in err
    assert EXPECTED[case] in err, err
    return err


def test_the_corpus_and_its_expectations_match():
    on_disk = {str(p.relative_to(CORPUS)) for kind in ("sessions", "cassettes", "keys")
               for p in (CORPUS / kind).iterdir()}
    on_disk |= {str(p.relative_to(CORPUS)) for p in (CORPUS / "data").iterdir()}
    assert on_disk == set(EXPECTED)
    assert len(cases("sessions")) >= 20 and len(cases("data")) >= 10


def test_the_good_documents_the_cases_are_made_from_load():
    assert load_session(CORPUS / "good" / "session.json", make_scenario).t == 20
    assert len(Cassette.replay(CORPUS / "good" / "cassette.json")) == 1
    assert load_market(str(CORPUS / "good" / "data")).n_bars == 20


@pytest.mark.parametrize("case", cases("sessions"))
def test_a_bad_session_is_one_line_and_exit_2_in_the_cli(case, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = fingerprint(CORPUS, tmp_path)
    path = str(CORPUS / case)
    err = one_line_refusal(capsys, main(["run", "synthetic", "--resume", path, "--quiet"]), case)
    assert Path(case).name in err
    one_line_refusal(capsys, main(["open", path]), case)
    assert fingerprint(CORPUS, tmp_path) == before


@pytest.mark.parametrize("case", cases("sessions"))
def test_a_bad_session_is_refused_by_the_labs_loader(case):
    with pytest.raises(AELError) as err:
        open_session(CORPUS / case)
    assert "\n" not in str(err.value) and EXPECTED[case] in str(err.value)


@pytest.mark.parametrize("case", cases("data"))
def test_a_bad_market_data_folder_is_one_line_in_the_cli_and_the_lab(case, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = fingerprint(CORPUS, tmp_path)
    folder = str(CORPUS / case)
    one_line_refusal(capsys, main(["run", "portfolio", "--data", folder, "--quiet"]), case)
    with pytest.raises(AELError) as err:
        build_session(NewSession("portfolio", options={"data": folder}))
    assert "\n" not in str(err.value) and EXPECTED[case] in str(err.value)
    assert fingerprint(CORPUS, tmp_path) == before


@pytest.mark.parametrize("case", cases("cassettes"))
def test_a_bad_cassette_is_one_line_in_the_cli_and_the_lab(case, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = fingerprint(CORPUS, tmp_path)
    path = str(CORPUS / case)
    one_line_refusal(capsys, main(["run", "support", "--agent", "anthropic", "--replay", path,
                                   "--episodes", "2", "--quiet"]), case)
    with pytest.raises(AELError) as err:
        build_session(NewSession("support", llm={"agent": "anthropic", "replay": path}))
    assert "\n" not in str(err.value) and EXPECTED[case] in str(err.value)
    assert fingerprint(CORPUS, tmp_path) == before


@pytest.mark.parametrize("case", cases("keys"))
def test_a_bad_keys_file_is_reported_in_one_line_per_problem(case):
    keymap, problems = load_keymap(CORPUS / case)
    assert keymap == {} and problems
    assert all("\n" not in p and str(CORPUS / case) in p for p in problems)
    assert any(EXPECTED[case] in p for p in problems), problems
