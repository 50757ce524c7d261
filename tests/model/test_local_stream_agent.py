"""The real local model (SmolLM2-135M) as the stream world's agent: a short stream runs to
the end with every row after the first labelled by the model (a label it was offered, or a
wrong answer counted as such), and the cassette it recorded replays to the same results in a
process that cannot load the model.

Assertions are on structure, never on accuracy (a 135M model's labels are weak). Skipped
with the reason where the local extra is not installed; AEL_REQUIRE_LOCAL=1 turns that skip
into a failure. Slow (each call is a second or more on one thread): `-m "not slow"` leaves it out.

The suite plays 8 rows, the demo stream's least (7 model calls, 3-5 s each on one thread once the system prompt's state is kept: the loop, the grammar
and the replay, within the suite's budget); the issue's 50-row run is the same test with
AEL_LOCAL_STREAM_ROWS=50 (49 calls, every one answered on the first try when it was run on
2026-11-28).
"""

from __future__ import annotations

import json
import os

import pytest

from scenarios.stream.demo import write_demo
from tests.model.test_local_model import NO_MODEL, RUN, ael_lab, require_local_model

pytestmark = pytest.mark.slow
ROWS = int(os.environ.get("AEL_LOCAL_STREAM_ROWS", "8"))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    require_local_model()
    d = tmp_path_factory.mktemp("stream-local")
    data = write_demo(d / "d50.csv", 1, n_rows=ROWS)
    argv = ["run", "stream", "--data", str(data), "--text", "text", "--label", "label", "--meta", "source,region",
            "--seeds", "1", "--selector", "ts", "--agent", "local", "--error-policy", "raise", "--quiet"]
    done = ael_lab(RUN, *argv, "--record", str(d / "tape.json"), "--json", str(d / "out.json"),
                   "--save", str(d / "s.json"))
    assert done.returncode == 0, done.stderr
    return d, argv


def test_a_stream_runs_to_the_end_with_the_local_model_labelling_each_row(recorded):
    d, _ = recorded
    run = json.loads((d / "out.json").read_text())["runs"][0]
    assert run["episodes"] == ROWS and run["complete"]
    llm = run["llm"]
    assert llm["by_purpose"]["agent.label"]["calls"] == ROWS - 1 and llm["fallbacks"] == 0  # row 0: nothing seen
    history = json.loads((d / "s.json").read_text())["session"]["history"]
    agents = [h["info"]["agent"] for h in history]
    assert agents[0] == "offline" and set(agents[1:]) <= {"llm", "rejected"}
    assert agents.count("rejected") == run["agent_rejected"] == llm["unanswered"]
    labels = [h["info"]["label"] for h in history]
    for t, h in enumerate(history[1:], start=1):  # the model's grammar holds it to the labels seen so far
        assert h["info"]["predicted"] in set(labels[:t]) | {""}


def test_its_cassette_replays_to_the_same_results_without_the_model(recorded):
    d, argv = recorded
    done = ael_lab(NO_MODEL, *argv, "--replay", str(d / "tape.json"), "--json", str(d / "replayed.json"))
    assert done.returncode == 0, done.stderr
    assert (d / "replayed.json").read_text() == (d / "out.json").read_text()
