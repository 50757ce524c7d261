"""A session file is untrusted: it cannot choose where the user's API key is sent,
nor create a cassette where its author likes. The person confirms both."""

import json

from ael_cli.main import main
from engine.store.persistence import save_session
from engine.session import Session, SessionConfig
from scenarios import make_scenario

KEY = "sk-ant-test-0123456789abcdefghij"


def saved(tmp_path, **llm) -> str:
    """An offline session at episode 3, whose file then claims the LLM settings `llm`."""
    s = Session(SessionConfig(scenario="support", seed=42, selector="ts", episodes=10),
                make_scenario("support", 42, {}))
    s.run(until=3)
    path = tmp_path / "shared.json"
    save_session(s, path)
    doc = json.loads(path.read_text())
    doc["session"]["config"]["llm"] = {"agent": "anthropic", "reflector": "offline", **llm}
    path.write_text(json.dumps(doc))
    return str(path)


def resume(path, *extra) -> int:
    return main(["run", "support", "--resume", path, "--quiet", *extra])


def test_a_file_cannot_send_the_key_to_a_host_of_its_choosing(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    path = saved(tmp_path, base_url="http://203.0.113.9:8080")
    before = (tmp_path / "shared.json").read_bytes()
    assert resume(path) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot choose where your API key goes" in err
    assert "--llm-url http://203.0.113.9:8080" in err
    assert (tmp_path / "shared.json").read_bytes() == before  # nothing written


def test_a_different_llm_url_on_resume_is_refused(tmp_path, capsys):
    path = saved(tmp_path, base_url="http://[redacted]@127.0.0.1:9")
    assert resume(path, "--llm-url", "http://127.0.0.1:10") == 2
    assert "keeps its endpoint" in capsys.readouterr().err


def test_the_same_host_confirms_it_userinfo_aside():
    from engine.store.persistence import check_llm_destinations

    check_llm_destinations({"agent": "anthropic", "base_url": "http://[redacted]@127.0.0.1:9/v1"}, "f.json",
                           "http://user:pw@127.0.0.1:9/v1", None)  # no error


def test_a_file_cannot_create_a_cassette_where_it_likes(tmp_path, capsys):
    target = tmp_path / "elsewhere" / "chosen.json"
    path = saved(tmp_path, agent="offline", record=str(target))
    assert resume(path) == 2
    err = capsys.readouterr().err
    assert "a session file cannot create files" in err and not target.exists()


def test_another_cassette_on_resume_is_refused(tmp_path, capsys):
    path = saved(tmp_path, agent="offline", record=str(tmp_path / "tape.json"))
    assert resume(path, "--record", str(tmp_path / "other.json")) == 2
    assert "keeps its cassette" in capsys.readouterr().err
