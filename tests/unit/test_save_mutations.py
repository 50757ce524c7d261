"""Every one-field change to a save is refused in one line, or loads and runs on.

A seeded sweep over the fields of a real save (each changed to a value of
another type or range, or removed): loading must raise `AELError` with one
line, or give a session that steps on (through a slow window, distillation
and a reflection) without any other exception."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from engine.errors import AELError
from engine.store.persistence import load_session
from scenarios import make_scenario

GOOD = Path(__file__).parent.parent / "bad_documents" / "good" / "session.json"
VALUES = [None, -1, 0, 1, 2.5, -0.5, 1e300, "", "x", [], {}, [1], {"a": 1}, True, 10**20, "NaN"]


def field_paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from field_paths(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node[:3]):
            yield from field_paths(value, path + (i,))


@pytest.mark.heavy
def test_one_field_changes_are_refused_in_one_line_or_run(tmp_path):
    base = json.loads(GOOD.read_text())
    paths = [p for p in field_paths(base["session"]) if p]
    rng = random.Random(2026)
    refused = ran = 0
    for _ in range(250):
        doc = copy.deepcopy(base)
        where = rng.choice(paths)
        parent = doc["session"]
        for key in where[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and rng.random() < 0.15:
            del parent[where[-1]]
        else:
            parent[where[-1]] = rng.choice(VALUES)
        path = tmp_path / "s.json"
        path.write_text(json.dumps(doc))
        try:
            session = load_session(path, make_scenario)
        except AELError as err:
            assert "\n" not in str(err), where
            refused += 1
            continue
        try:
            session.run(until=session.t + 30)
        except AELError:
            pass  # a refusal a person can act on (say, a pending decision) is fine
        ran += 1
    assert refused > 100 and ran > 50  # both kinds of outcome were exercised
