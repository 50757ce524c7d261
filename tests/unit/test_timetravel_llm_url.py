"""`explain` and `branch` on a save whose LLM calls go to a URL (`--llm-url`): the save cannot
choose where the key goes, so they refuse it until the person confirms the endpoint, and take
the flag their refusal names (before, they named `--llm-url` and had no such flag)."""

from __future__ import annotations

import json

import pytest

from ael_cli.main import main

pytestmark = pytest.mark.heavy  # a fake model server and a 30-ticket support run recorded, then replayed


@pytest.fixture(scope="module")
def replayed_save(tmp_path_factory):
    """A support run of 30 tickets played by a model behind a URL, answering from a cassette."""
    import os

    from tests.fake_llm_server import FakeLLMServer

    folder = tmp_path_factory.mktemp("llm-url")
    cassette, save = folder / "calls.json", folder / "replayed.json"
    key = "sk-ant-test-secret-0123456789"
    saved_env = {k: os.environ.pop(k, None) for k in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}
    try:
        with FakeLLMServer("echo") as server:
            os.environ["ANTHROPIC_API_KEY"] = key
            common = ["run", "support", "--episodes", "30", "--agent", "anthropic", "--llm-url", server.url,
                      "--quiet"]
            assert main([*common, "--record", str(cassette)]) == 0
            assert main([*common, "--replay", str(cassette), "--save", str(save)]) == 0
            url = server.url
    finally:
        for k, v in saved_env.items():
            os.environ.pop(k, None)
            if v is not None:
                os.environ[k] = v
    return save, url


def test_explain_takes_the_llm_url_its_refusal_names(replayed_save, capsys):
    save, url = replayed_save
    assert main(["explain", str(save), "--episode", "20", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"confirm with --llm-url {url}" in err
    assert main(["explain", str(save), "--episode", "20", "--json", "--llm-url", url]) == 0
    assert json.loads(capsys.readouterr().out)["episode"] == 20


def test_branch_takes_the_llm_url_its_refusal_names(replayed_save, tmp_path, capsys):
    save, url = replayed_save
    out = tmp_path / "b.json"
    assert main(["branch", str(save), "--at", "10", "--save", str(out)]) == 2
    assert f"confirm with --llm-url {url}" in capsys.readouterr().err and not out.exists()
    assert main(["branch", str(save), "--at", "10", "--save", str(out), "--llm-url", url]) == 0
    said = capsys.readouterr().out  # the command to continue it names the URL its resume will ask to confirm
    assert out.exists() and f"continue with: ael-lab run support --resume {out} --llm-url {url}" in said, said


def test_another_url_than_the_save_names_is_refused(replayed_save, tmp_path, capsys):
    save, _ = replayed_save
    for argv in (["explain", str(save), "--episode", "20"],
                 ["branch", str(save), "--at", "10", "--save", str(tmp_path / "x.json")]):
        assert main([*argv, "--llm-url", "http://127.0.0.1:9"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "keeps its endpoint" in err
    assert not (tmp_path / "x.json").exists()
