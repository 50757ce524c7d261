"""The README's export-stream sentence, run as written: the command, the file's
SHA-256 prefix and the spec's check value are all read from the README."""

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "docs" / "worlds.md"  # the README's reference on the worlds
SENTENCE = re.compile(
    r"`(?P<command>ael-lab export-stream [^`>]+> (?P<file>[\w.]+))` writes the stream.*?"
    r"the file's SHA-256 begins `(?P<file_hash>[0-9a-f]+)`.*?"
    r"check value `(?P<list_hash>[0-9a-f]+)` is the SHA-256 prefix of the same tickets as one JSON list",
    re.S)


def test_the_readme_export_stream_sentence_is_true(tmp_path):
    found = SENTENCE.search(README.read_text(encoding="utf-8"))
    assert found, "the README no longer states the export-stream hashes in the tested form"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run(found["command"], shell=True, cwd=tmp_path, env=env, check=True)
    data = (tmp_path / found["file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest().startswith(found["file_hash"])
    rows = [json.loads(line) for line in data.decode().splitlines()]
    assert hashlib.sha256(json.dumps(rows).encode()).hexdigest().startswith(found["list_hash"])
    assert len(found["file_hash"]) >= 8 and len(found["list_hash"]) >= 8
