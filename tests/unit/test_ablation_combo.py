"""The issue's done-when: the variants together run, save and resume exactly; replay reads the save."""

import json
from pathlib import Path

import pytest

from ael_cli.main import main

DFULL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dfull"
if not (DFULL / "prices_1h").is_dir():
    DFULL = Path("/work/shared/data/dfull")
needs_dfull = pytest.mark.skipif(not (DFULL / "prices_1h").is_dir(), reason="../shared/data/dfull is absent")
COMBO = ["--selector", "ts+reflection", "--variant", "planners,per-tool,skills,credit=fcc"]


def _run(tmp_path, name, *argv):
    out = tmp_path / f"{name}.json"
    assert main(["run", "portfolio", "--quiet", *argv, "--json", str(out)]) == 0
    return json.loads(out.read_text())["runs"][0]


def _resumes_exactly(tmp_path, data_args, episodes_args, until, *whole_args):
    whole = _run(tmp_path, "whole", *COMBO, *data_args, *episodes_args, *whole_args)
    save = tmp_path / "half-save.json"
    assert main(["run", "portfolio", "--quiet", *COMBO, *data_args, *episodes_args, "--until", str(until),
                 "--save", str(save)]) == 0
    resumed = _run(tmp_path, "resumed", "--resume", str(save))
    assert resumed == whole
    return save


def test_the_combination_saves_and_resumes_exactly_on_a_short_stretch(tmp_path):
    _resumes_exactly(tmp_path, [], ["--episodes", "48"], 29)


@pytest.mark.heavy
@needs_dfull
def test_the_combination_on_dfull_resumes_exactly_and_replay_reads_the_save(tmp_path, capsys):
    full = tmp_path / "full.json"  # the whole run's save, read by replay below
    _resumes_exactly(tmp_path, ["--data", str(DFULL)], [], 101, "--save", str(full))
    capsys.readouterr()
    assert main(["replay", str(full)]) == 0
    out = capsys.readouterr().out
    assert "(128 episodes)" in out and "Oracle (per-seed hindsight best)" in out
    assert "credited reward" in out
