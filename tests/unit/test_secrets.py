"""The one secret scrubber: what it cuts, what it must leave alone, and where it applies."""

import json

import pytest

from engine.store.atomic import write_json_atomic
from engine.secrets import REDACTED, clip, scrub, scrub_data

KEY = "sk-ant-api03-Secret0123456789"


def test_a_key_from_the_environment_is_cut_wherever_it_appears():
    env = {"ANTHROPIC_API_KEY": KEY}
    assert scrub(f"the key {KEY} was refused; again: {KEY}", env) == f"the key {REDACTED} was refused; again: {REDACTED}"


@pytest.mark.parametrize("name", ["MY_SERVICE_TOKEN", "DB_PASSWORD", "X_SECRET", "GEMINI_API_KEY"])
def test_any_credential_like_variable_counts(name):
    assert scrub("value: p4ssw0rd-long-enough", {name: "p4ssw0rd-long-enough"}) == f"value: {REDACTED}"


def test_a_placeholder_key_never_mangles_text():
    # local servers accept any key, so OPENAI_API_KEY=x is normal; "x" is not a secret
    message = "This model's maximum context length is 2048 tokens (xxx)"
    for placeholder in ("x", "none", "sk-1234", "EMPTY"):
        assert scrub(message, {"OPENAI_API_KEY": placeholder}) == message


def test_a_value_with_spaces_is_not_key_shaped():
    text = "the quick brown fox jumps"
    assert scrub(text, {"SOME_TOKEN": "quick brown fox"}) == text


def test_url_userinfo_and_bearer_tokens_and_key_pairs_are_cut_without_knowing_them():
    text = ("GET http://me:hunter2-long@example.org/v1 with Authorization: Bearer abc.DEF-123_456 "
            "and x-api-key: 0123456789abcdef and ?api_key=ZYX98765432")
    out = scrub(text, {})
    assert out == (f"GET http://{REDACTED}@example.org/v1 with Authorization: Bearer {REDACTED} "
                   f"and x-api-key: {REDACTED} and ?api_key={REDACTED}")


def test_provider_shaped_keys_are_cut_but_words_that_look_alike_are_not():
    google = "AIzaSyA1234567890abcdefghijklmnopqrstu"
    assert scrub(f"keys {KEY} and {google}", {}) == f"keys {REDACTED} and {REDACTED}"
    for ordinary in ("task-specific-retrieval-policy", "risk-0123456789012345678", "sk-tiny"):
        assert scrub(ordinary, {}) == ordinary


def test_scrubbing_the_text_of_a_json_document_leaves_valid_json():
    doc = {"url": "http://u:pw-long-12@h", "reply": f'he said "{KEY}"', KEY: [KEY]}
    text = scrub(json.dumps(doc), {"ANTHROPIC_API_KEY": KEY})
    assert json.loads(text) == {"url": f"http://{REDACTED}@h", "reply": f'he said "{REDACTED}"',
                                REDACTED: [REDACTED]}
    assert scrub_data(doc, {"ANTHROPIC_API_KEY": KEY}) == json.loads(text)


def test_every_file_written_atomically_is_scrubbed(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    path = tmp_path / "doc.json"
    write_json_atomic(path, {"insight": f"use {KEY}", "url": "https://a:b-secret-pass@host/x"})
    assert KEY not in path.read_text() and "b-secret-pass" not in path.read_text()
    assert json.loads(path.read_text())["insight"] == f"use {REDACTED}"


def test_error_text_is_clipped_to_one_short_line():
    line = clip("boom\n" + "x" * 10_000_000)
    assert "\n" not in line and len(line) <= 300 and line.endswith("…")


def test_ticket_text_that_talks_about_keys_is_left_alone():
    ticket = "HTTP 401 Unauthorized: invalid api key, OPENAI_API_KEY env var not set; Bearer token expired"
    assert scrub(ticket, {}) == ticket
