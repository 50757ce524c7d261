"""Plugins that misbehave at import (round four, finding 8): one that exits, interrupts,
calls os._exit, hangs or prints is left out with one line and the command works on;
every result names the plugins that ran; `--no-plugins` reads none. The CLI runs as a
subprocess: an `os._exit` or a hang is what no in-process test can survive."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import engine.methods as methods
from engine import plugins
from tests.lab.test_plugins import fake_distribution, fresh_plugins  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[2]
RUN = ["run", "synthetic", "--seeds", "1", "--selector", "ts", "--episodes", "20", "--quiet", "--workers", "1"]
GOOD_METHOD = ("from engine.bandits import RoundRobin\nfrom engine.method_base import Method\n"
               "class AlwaysFirst(Method):\n    name = 'always-first'\n"
               "    summary = 'every arm in turn (a plugin method)'\n    selector_class = RoundRobin\n")


def ael(args: list[str], folder: Path, cache: Path, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)]),
                   "AEL_LAB_PLUGIN_CACHE": str(cache), **env}
    return subprocess.run([sys.executable, "-m", "ael_cli.main", *args], capture_output=True, text=True,
                          env=environment, timeout=timeout, cwd=folder)


def our_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("ael-lab:")]


def plugin_dist(folder: Path, name: str, source: str) -> None:
    """A distribution `name` 0.1 with a method entry point whose module is `source`."""
    fake_distribution(folder, name, {"ael_lab.methods": {f"{name}-method": f"ael_guard_{name}:Thing"}},
                      {f"ael_guard_{name}": source})


BAD = {
    "exits": ("import sys\nsys.exit(7)\n", "SystemExit: 7"),
    "interrupts": ("raise KeyboardInterrupt\n", "KeyboardInterrupt"),
    "hard_exits": ("import os\nos._exit(0)\n", "ended the process (exit status 0)"),
    "hangs": ("import os, time\nopen('hung.pid', 'a').write(f'{os.getpid()}\\n')\ntime.sleep(600)\n",
              "did not finish within 1 s"),
    "prints": ("import os\nprint('{\"not\": \"yours\"}')\nos.write(1, b'raw bytes on fd 1\\n')\nThing = 3\n",
               "not an engine.methods.Method subclass"),
}


@pytest.mark.parametrize("kind", list(BAD))
def test_a_plugin_that_misbehaves_at_import_is_one_line_and_the_commands_work(tmp_path, kind):
    source, said = BAD[kind]
    plugin_dist(tmp_path, kind, source)
    cache = tmp_path / "cache"
    helped = ael(["--help"], tmp_path, cache, AEL_PLUGIN_TIMEOUT="1")
    assert helped.returncode == 0 and helped.stdout.startswith("usage: ael-lab"), helped.stderr
    lines = our_lines(helped.stderr)
    assert len(lines) == 1 and kind in lines[0] and said in lines[0], helped.stderr
    ran = ael([*RUN, "--json", "-"], tmp_path, cache, AEL_PLUGIN_TIMEOUT="1")  # the results on stdout
    assert ran.returncode == 0 and len(our_lines(ran.stderr)) == 1, ran.stderr
    document = json.loads(ran.stdout)  # and nothing else there: no table, no plugin's print
    assert document["runs"][0]["episodes"] == 20 and document["plugins"] == []
    streamed = ael(["export-stream", "support", "--seed", "1"], tmp_path, cache, AEL_PLUGIN_TIMEOUT="1")
    assert streamed.returncode == 0 and streamed.stdout
    assert all(isinstance(json.loads(line), dict) for line in streamed.stdout.splitlines())  # nothing else on stdout
    if kind == "hangs":  # the probe's child was killed with its whole session
        for pid in map(int, (tmp_path / "hung.pid").read_text().split()):
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)


def test_what_a_loaded_plugin_prints_goes_to_stderr_and_json_stays_parseable(tmp_path):
    plugin_dist(tmp_path, "chatty", "print('hello from a plugin')\n" + GOOD_METHOD.replace("AlwaysFirst", "Thing"))
    cache = tmp_path / "cache"
    saved = ael([*RUN, "--save", "s.json"], tmp_path, cache)
    assert saved.returncode == 0, saved.stderr
    explained = ael(["explain", "s.json", "--episode", "5", "--json"], tmp_path, cache)
    assert explained.returncode == 0, explained.stderr
    assert isinstance(json.loads(explained.stdout), dict)
    assert "hello from a plugin" in explained.stderr and "hello" not in explained.stdout


def test_a_run_with_a_plugin_names_it_everywhere_and_no_plugins_runs_without_it(tmp_path):
    plugin_dist(tmp_path, "patcher", "open('imported', 'a').write('x')\n"
                + GOOD_METHOD.replace("AlwaysFirst", "Thing").replace("'always-first'", "'patcher-method'"))
    cache = tmp_path / "cache"
    ran = ael(["run", "synthetic", "--seeds", "1", "--selector", "ts,patcher-method", "--episodes", "20",
               "--workers", "1", "--json", "out.json", "--quiet"], tmp_path, cache)
    assert ran.returncode == 0 and ran.stderr == "", ran.stderr
    document = json.loads((tmp_path / "out.json").read_text())
    named = [{"distribution": "patcher", "version": "0.1"}]
    assert document["plugins"] == named and all(r["plugins"] == named for r in document["runs"])
    table = ael(["run", "synthetic", "--seeds", "1", "--selector", "ts", "--episodes", "20", "--save", "s.json"],
                tmp_path, cache)
    assert table.returncode == 0 and "plugins: patcher 0.1" in table.stdout, table.stdout
    assert json.loads((tmp_path / "s.json").read_text())["plugins"] == named

    (tmp_path / "imported").unlink()
    plain = ael([*RUN, "--no-plugins", "--json", "plain.json"], tmp_path, cache)  # after the command: the same flag
    assert plain.returncode == 0 and plain.stderr == "", plain.stderr
    assert json.loads((tmp_path / "plain.json").read_text())["plugins"] == []
    refused = ael(["--no-plugins", "run", "synthetic", "--selector", "patcher-method", "--quiet"], tmp_path, cache)
    assert refused.returncode == 2 and "patcher-method" in refused.stderr
    lab_env = ael([*RUN, "--json", "env.json"], tmp_path, cache, AEL_NO_PLUGINS="1")
    assert lab_env.returncode == 0 and json.loads((tmp_path / "env.json").read_text())["plugins"] == []
    assert not (tmp_path / "imported").exists()  # not even imported: a plugin that patches the engine stays out


def test_the_probe_is_cached_by_the_plugins_content_and_a_foreign_verdict_is_not_trusted(tmp_path):
    plugin_dist(tmp_path, "counted", "open('imports', 'a').write('x')\nimport os\nos._exit(0)\n")
    cache = tmp_path / "cache"
    assert "ended the process" in ael(["--help"], tmp_path, cache).stderr
    assert (tmp_path / "imports").read_text() == "x"  # the child's import only
    assert "ended the process" in ael(["--help"], tmp_path, cache).stderr
    assert (tmp_path / "imports").read_text() == "x"  # the cached verdict: not imported again
    for entry in cache.iterdir():  # a verdict saying "fine" under another key: ignored, probed again
        entry.write_text(json.dumps({"format": "ael-lab-plugin-probe-1", "key": "0" * 64, "failed": None,
                                     "verdicts": {}}))
    again = ael(["--help"], tmp_path, cache)
    assert again.returncode == 0 and "ended the process" in again.stderr
    assert (tmp_path / "imports").read_text() == "xx"
    (tmp_path / "ael_guard_counted.py").write_text(GOOD_METHOD.replace("AlwaysFirst", "Thing")
                                                   .replace("'always-first'", "'counted-method'"))
    fixed = ael(["--help"], tmp_path, cache)  # its files changed: a new key, probed, admitted
    assert fixed.returncode == 0 and fixed.stderr == "", fixed.stderr


def test_a_plugin_that_exits_only_in_our_process_is_left_out_there_too(fresh_plugins, monkeypatch):
    """The child sets AEL_NO_PLUGINS; a plugin behaving otherwise here meets the in-process guard."""
    fake_distribution(fresh_plugins, "two_faced", {"ael_lab.methods": {"two-faced": "ael_test_plugin_two:Thing"}},
                      {"ael_test_plugin_two": "import os\nif not os.environ.get('AEL_NO_PLUGINS'):\n"
                                              "    raise SystemExit(3)\nThing = 1\n"})
    monkeypatch.syspath_prepend(str(fresh_plugins))
    monkeypatch.delenv("AEL_NO_PLUGINS", raising=False)
    plugins.load(plugins.METHODS, methods._admit_plugin)
    assert len(plugins.NOTICES) == 1 and "'two-faced'" in plugins.NOTICES[0] and "SystemExit: 3" in plugins.NOTICES[0]
    assert plugins.loaded() == []


@pytest.mark.parametrize("source, said", [
    ("import os, time\nif not os.environ.get('AEL_NO_PLUGINS'):\n    time.sleep(600)\nThing = 1\n",
     "it ran for more than 0.2 s in this process"),
    ("import os\nif not os.environ.get('AEL_NO_PLUGINS'):\n    os._exit(0)\nThing = 1\n", "it called os._exit(0)"),
], ids=["hangs", "hard-exits"])
def test_a_plugin_that_hangs_or_hard_exits_only_in_our_process_is_left_out_there_too(fresh_plugins, monkeypatch,
                                                                                    source, said):
    """The probe's child passes it; here it would freeze `--help` or end the command with exit 0
    and no output. A deadline and a refused os._exit leave it out in one line, and both are
    undone after (the timer off, os._exit the real one)."""
    import signal

    real_exit = os._exit
    monkeypatch.setattr(plugins, "_in_process_limit", lambda: 0.2)
    fake_distribution(fresh_plugins, "two_faced_more", {"ael_lab.methods": {"two-faced-more": "ael_test_two_more:Thing"}},
                      {"ael_test_two_more": source})
    monkeypatch.syspath_prepend(str(fresh_plugins))
    monkeypatch.delenv("AEL_NO_PLUGINS", raising=False)
    plugins.load(plugins.METHODS, methods._admit_plugin)
    assert len(plugins.NOTICES) == 1 and "'two-faced-more'" in plugins.NOTICES[0] and said in plugins.NOTICES[0]
    assert plugins.loaded() == [] and os._exit is real_exit
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_save_names_its_plugins_and_an_old_save_without_them_loads(tmp_path, monkeypatch):
    from engine.errors import AELError
    from engine.store.persistence import read_document, save_session
    from tests.conftest import new_session

    session = new_session(episodes=10)
    session.run()
    monkeypatch.setattr(plugins, "_admitted", {"some_dist": "2.0"})
    save_session(session, tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["plugins"] == [{"distribution": "some_dist", "version": "2.0"}]
    assert read_document(tmp_path / "s.json")["plugins"] == doc["plugins"]
    del doc["plugins"]  # as a save from before this field
    (tmp_path / "old.json").write_text(json.dumps(doc))
    assert read_document(tmp_path / "old.json")["plugins"] == []
    doc["plugins"] = [{"distribution": "x"}]
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(AELError, match=r"field plugins\[0\]\.version"):
        read_document(tmp_path / "bad.json")


def test_the_labs_status_line_names_the_plugins(monkeypatch):
    from ael_tui.widgets.readouts import status_of
    from tests.conftest import new_session

    assert status_of(new_session(episodes=10)).plugins == ""
    monkeypatch.setattr(plugins, "_admitted", {"some_dist": "2.0"})
    assert status_of(new_session(episodes=10)).plugins == "plugins: some_dist 2.0"


def test_no_plugins_reaches_the_labs_of_a_served_class():
    from ael_tui.serve.mode import ServedMode
    from ael_tui.serve.server import app_environment

    env = {"PATH": "/usr/bin", "AEL_NO_PLUGINS": "1", "AEL_PLUGIN_TIMEOUT": "2", "GEMINI_API_KEY": "g"}
    safe = app_environment(env, ServedMode(root="/class"))
    assert safe["AEL_NO_PLUGINS"] == "1" and safe["AEL_PLUGIN_TIMEOUT"] == "2" and "GEMINI_API_KEY" not in safe


def test_no_plugins_is_the_whole_commands_wherever_it_is_typed():
    from ael_cli.main import _whole_command_flags_first

    assert _whole_command_flags_first(["run", "x", "--no-plugins", "--seeds", "1"]) == \
        ["--no-plugins", "run", "x", "--seeds", "1"]
    assert _whole_command_flags_first(["run", "x", "--", "--no-plugins"]) == ["run", "x", "--", "--no-plugins"]
    assert _whole_command_flags_first(["--no-plugins", "run"]) == ["--no-plugins", "run"]


def test_no_plugins_in_a_process_that_already_loaded_them_says_so(monkeypatch, capsys):
    from ael_cli.main import main

    monkeypatch.setenv("AEL_NO_PLUGINS", "")  # restored after: main sets it for the processes it starts
    monkeypatch.setattr(plugins, "_admitted", {"some_dist": "2.0"})
    assert main(["--no-plugins", *RUN]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--no-plugins: plugins were loaded before" in err and "some_dist 2.0" in err


def test_the_labs_export_and_the_reproduce_report_name_the_plugins(tmp_path, monkeypatch):
    from ael_cli.reproduce.markdown import plugin_lines
    from ael_tui.widgets.exports import export_history
    from tests.conftest import new_session

    session = new_session(episodes=10)
    session.run()
    assert plugin_lines() == []
    monkeypatch.setattr(plugins, "_admitted", {"some_dist": "2.0"})
    _, json_path = export_history({"ts": session}, tmp_path / "run")
    assert json.loads(json_path.read_text())["plugins"] == [{"distribution": "some_dist", "version": "2.0"}]
    assert "Plugins: some_dist 2.0" in plugin_lines()[0]


def split_world(folder: Path, prefix: str) -> None:
    """The example world with its SPEC and its class in two modules, the class's module
    starting with `prefix`: imported only when a world is built, after start-up."""
    head, tail = (ROOT / "examples" / "plugin-world" / "ael_plugin_world.py").read_text().split("LAMPS = ", 1)
    spec = head.replace('"plugin-world"', '"split-world"').replace("ael_plugin_world:", "ael_guard_split_world:")
    world = (prefix + "from engine.options import resolve\nfrom engine.policies import PolicySpec\n"
             "from engine.scenario import Outcome, Query, ScenarioBase\nfrom ael_guard_split_spec import SPEC\n"
             "LAMPS = " + tail)
    fake_distribution(folder, "split_world", {"ael_lab.scenarios": {"split-world": "ael_guard_split_spec"}},
                      {"ael_guard_split_spec": spec, "ael_guard_split_world": world})


def test_a_worlds_class_module_is_probed_and_guarded_too(tmp_path):
    cache = tmp_path / "cache"
    split_world(tmp_path, "print('the world module on stdout')\n")
    ran = ael(["run", "split-world", "--seeds", "1", "--selector", "ts", "--lamps-on", "20"], tmp_path, cache)
    assert ran.returncode == 0 and "split-world: 1 seed(s) · plugins: split_world 0.1" in ran.stdout, ran.stderr
    assert "on stdout" not in ran.stdout and "the world module on stdout" in ran.stderr

    for name in ("ael_guard_split_spec.py", "ael_guard_split_world.py"):
        (tmp_path / name).unlink()
    split_world(tmp_path / "exits", "import sys\nsys.exit(5)\n")  # in the probe's child too: out at start-up
    helped = ael(["--help"], tmp_path / "exits", cache)
    assert helped.returncode == 0 and our_lines(helped.stderr) == [
        "ael-lab: warning: plugin 'split-world' (ael_lab.scenarios from split_world, ael_guard_split_spec) was "
        "left out: SystemExit: 5"]

    split_world(tmp_path / "here", "import os\nif not os.environ.get('AEL_NO_PLUGINS'):\n    raise SystemExit(4)\n")
    built = ael(["run", "split-world", "--seeds", "1", "--selector", "ts", "--quiet", "--workers", "1"],
                tmp_path / "here", cache)
    assert built.returncode == 2 and our_lines(built.stderr) == [
        "ael-lab: scenario 'split-world' (a plugin) could not be built: SystemExit (4)"], built.stderr


def test_a_plugins_names_and_messages_reach_the_terminal_shown_not_obeyed(fresh_plugins, monkeypatch):
    title = "\x1b]0;pwned\x07"
    clipboard = "\x1b]52;c;cm0gLXJmIH4=\x07"
    fake_distribution(fresh_plugins, "loud", {"ael_lab.methods": {"loud": "ael_test_plugin_loud:Thing"}},
                      {"ael_test_plugin_loud": f"raise RuntimeError({clipboard!r} + 'done')\n"})
    metadata = fresh_plugins / "loud-0.1.dist-info" / "METADATA"
    metadata.write_text(metadata.read_text().replace("Version: 0.1", f"Version: 0.1{title}"))
    monkeypatch.syspath_prepend(str(fresh_plugins))
    plugins.load(plugins.METHODS, methods._admit_plugin)
    assert len(plugins.NOTICES) == 1 and "RuntimeError: ?]52;c;cm0gLXJmIH4=?done" in plugins.NOTICES[0]
    assert not any(c in plugins.NOTICES[0] for c in "\x1b\x07")
    assert plugins._distribution(next(iter(plugins._entry_points(plugins.METHODS))))[1] == "0.1?]0;pwned?"
