"""Every reflection of short seeded runs, pinned: the episode, the trigger, what it proposed
and a digest of the whole reflection (diagnosis, insight, rationale, evidence), with the
reflector's saved state and the decisions at the end. The runs reject every proposal
(the cool-down) or approve it (the candidate in the pool), under both triggers, so each
rule of the reflection gate (engine/reflection_gate.py) decides somewhere in them.

A change meant to alter reflections regenerates the pins, and says why in its commit:
    .venv/bin/python -m tests.unit.test_reflection_pins
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from engine.session import Session, SessionConfig
from scenarios import make_scenario
from scenarios.stream.demo import write_demo
from tests.news_corpus import write_corpus

PINS = Path(__file__).parent / "fixtures" / "reflection_pins.json"
DFULL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dfull"
STREAM = {"text": "text", "label": "label", "meta": ["source", "region", "channel"], "regime": "phase"}

# name: (scenario, scenario options, reflector options, approval, episodes); "{news}", "{stream}"
# and "{dfull}" are data written (or found) when the run starts
RUNS: dict[str, tuple[str, dict[str, Any], dict[str, Any], str, int | None]] = {
    "synthetic-paper-reject": ("synthetic", {}, {}, "reject", None),
    "synthetic-paper-auto": ("synthetic", {}, {}, "auto", None),
    "support-diagnose-reject": ("support", {}, {}, "reject", None),
    "support-diagnose-auto": ("support", {}, {}, "auto", None),
    "support-paper-reject": ("support", {}, {"trigger": "paper"}, "reject", None),
    "support-diagnose-high-bar-auto": ("support", {}, {"threshold": 0.9}, "auto", 700),
    "news-diagnose-high-bar-auto": ("news", {"data": "{news}"}, {"threshold": 0.95, "trigger": "diagnose"}, "auto",
                                    None),
    "stream-high-bar-reject": ("stream", {"data": "{stream}", **STREAM}, {"threshold": 0.95}, "reject", None),
    "portfolio-diagnose-reject": ("portfolio", {}, {}, "reject", 240),
    "portfolio-paper-reject": ("portfolio", {}, {"trigger": "paper", "threshold": 0.6}, "reject", 240),
    "portfolio-dfull-diagnose-reject": ("portfolio", {"data": "{dfull}"}, {}, "reject", 240),
}


def digest(reflection: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(reflection, sort_keys=True).encode()).hexdigest()[:16]


def fingerprint(name: str, data: dict[str, str]) -> dict[str, Any]:
    scenario, options, reflector, approval, episodes = RUNS[name]
    options = {k: v.format(**data) if isinstance(v, str) else v for k, v in options.items()}
    config = SessionConfig(scenario, 42, "ts+reflection", approval=approval, episodes=episodes,
                           scenario_options=dict(options), reflector_options=dict(reflector))
    s = Session(config, make_scenario(scenario, 42, dict(options)))
    s.run()
    return {
        "reflections": [[r.episode, r.trigger, (r.policy or {}).get("name"), digest(r.to_dict())]
                        for r in s.reflections],
        "state": s.reflector.state_dict(),
        "decisions": [[a.episode, a.kind, a.decision] for a in s.queue.audit],
        "diagnoses": {r.episode: r.diagnosis for r in s.reflections},  # for the message, not pinned
    }


def write_data(folder: Path) -> dict[str, str]:
    news = folder / "news"
    if not news.exists():
        news.mkdir(parents=True)
        write_corpus(news)
    return {"news": str(news), "stream": str(write_demo(folder / "demo.csv", 3)), "dfull": str(DFULL)}


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> dict[str, str]:
    return write_data(tmp_path_factory.mktemp("pins"))


@pytest.mark.parametrize("name", list(RUNS))
def test_reflections_are_as_pinned(name, data):
    if "dfull" in name and not (DFULL / "prices_1h").is_dir():
        pytest.skip("../shared/data/dfull is absent")
    pinned = json.loads(PINS.read_text(encoding="utf-8"))[name]
    got = fingerprint(name, data)
    for old, new in zip(pinned["reflections"], got["reflections"]):
        assert new == old, f"the reflection after episode {new[0]} changed: {got['diagnoses'][new[0]]}"
    assert len(got["reflections"]) == len(pinned["reflections"])
    assert got["state"] == pinned["state"]
    assert got["decisions"] == pinned["decisions"]


if __name__ == "__main__":  # regenerate the pins
    import re
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        where = write_data(Path(tmp))
        pins = {}
        for run in RUNS:
            pins[run] = fingerprint(run, where)
            del pins[run]["diagnoses"]
    text = re.sub(r"\[\s+([^][{}]*?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]",
                  json.dumps(pins, indent=1))  # one reflection a line
    PINS.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {PINS}")
