"""A headless run loads only what it uses: no UI, no LLM SDK, no progress bar with
--quiet, no process pool for a single run, no save schema (pydantic) when it
neither reads nor writes a save (each is start-up time for nothing)."""

import subprocess
import sys

UNUSED = ("textual", "rich", "anthropic", "google.genai", "httpx", "concurrent.futures.process",
          "engine.llm.reflector", "pydantic", "engine.store.session_schema", "engine.llm.cassette",
          "engine.llm.client")


def loaded_after(argv: list[str]) -> set[str]:
    code = ("import sys; from ael_cli.main import main; code = main(sys.argv[1:]); "
            "print(' '.join(sorted(sys.modules))); sys.exit(code)")
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_a_quiet_single_run_imports_nothing_it_does_not_use():
    loaded = loaded_after(["run", "synthetic", "--seeds", "42", "--selector", "ts", "--quiet"])
    assert "engine.session" in loaded  # the probe sees the run's imports
    assert not {m for m in loaded if m.split(".")[0] in UNUSED or m in UNUSED}
