"""The keys file (issue 27, finding 9): a key name Textual does not know, and two actions
on one key, are each one line naming them; the rest of the file is still used."""

from __future__ import annotations

import json

from ael_tui.config import is_key_name, load_keymap


def keymap_of(tmp_path, doc: dict):
    path = tmp_path / "keys.json"
    path.write_text(json.dumps(doc))
    return load_keymap(path)


def test_an_unknown_key_name_is_refused_by_name(tmp_path):
    keymap, problems = keymap_of(tmp_path, {"lab.step": "ctrl+nope", "lab.load": "f3", "lab.save": "f99"})
    assert keymap == {"lab.load": "f3"}
    assert any("'lab.step': 'ctrl+nope' is not a key name" in p for p in problems)
    assert any("'lab.save': 'f99' is not a key name" in p for p in problems)
    assert all("\n" not in p for p in problems)


def test_key_names_textual_knows_are_accepted():
    for key in ("n", "N", "?", "ctrl+n", "shift+tab", "f5", "escape", "space", "question_mark", "plus", "pageup"):
        assert is_key_name(key), key
    for key in ("nonsense", "ctrl+ctrl+n", "hyperspace+n", "ctrl+?", "f99", ""):
        assert not is_key_name(key), key


def test_two_actions_on_one_key_are_named_and_the_entry_is_ignored(tmp_path):
    keymap, problems = keymap_of(tmp_path, {"lab.step": "w", "lab.load": "f3"})  # w is lab.window's
    assert keymap == {"lab.load": "f3"}
    assert len(problems) == 1 and "'lab.step' and 'lab.window' would both be on 'w'" in problems[0]
    keymap, problems = keymap_of(tmp_path, {"lab.step": "s"})  # s is the app's screenshot, everywhere
    assert keymap == {} and "'app.screenshot'" in problems[0]
    keymap, problems = keymap_of(tmp_path, {"lab.step": "question_mark"})  # "?" and its name are one key
    assert keymap == {} and "'app.help'" in problems[0]


def test_a_swap_and_keys_in_other_screens_are_no_clash(tmp_path):
    assert keymap_of(tmp_path, {"lab.step": "w", "lab.window": "space"}) == (
        {"lab.step": "w", "lab.window": "space"}, [])
    assert keymap_of(tmp_path, {"lab.step": "n"}) == ({"lab.step": "n"}, [])  # n rejects only in dialogs
