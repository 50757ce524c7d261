"""Worlds, methods and variants from other packages (issue 33): entry points, read lazily;
a broken plugin is one line at start-up, never a crash."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import engine.methods as methods
import engine.variants.session_variants as variant_set
import scenarios
from ael_cli.main import main
from engine import plugins
from engine.method_base import METHODS
from engine.variants import VARIANTS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "plugin-world"


def fake_distribution(folder: Path, name: str, groups: dict[str, dict[str, str]], modules: dict[str, str]) -> None:
    """A distribution as an installer leaves it: a dist-info with entry_points.txt, and its modules."""
    info = folder / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) for group, entries in groups.items()))
    for module, source in modules.items():
        (folder / f"{module}.py").write_text(source)


@pytest.fixture
def fresh_plugins(monkeypatch, tmp_path):
    """The registries as a new process finds them: nothing read yet, no notices; undone after."""
    monkeypatch.setattr(plugins, "_loaded", set())
    monkeypatch.setattr(plugins, "NOTICES", [])
    monkeypatch.setattr(plugins, "_admitted", {})
    monkeypatch.setattr(plugins, "_probed", {})
    registry, known_methods, known_variants = dict(scenarios.REGISTRY), dict(METHODS), dict(VARIANTS)
    yield tmp_path
    scenarios.REGISTRY.clear()
    scenarios.REGISTRY.update(registry)
    METHODS.clear()
    METHODS.update(known_methods)
    VARIANTS.clear()
    VARIANTS.update(known_variants)
    for name in [m for m in sys.modules if m.startswith("ael_test_plugin")]:
        del sys.modules[name]


def test_a_plugin_that_raises_on_import_is_one_line_and_the_lab_works_on(fresh_plugins, monkeypatch, capsys):
    fake_distribution(fresh_plugins, "broken_world", {
        "ael_lab.scenarios": {"broken-world": "ael_test_plugin_broken"},
        "ael_lab.methods": {"broken-method": "ael_test_plugin_broken_m:Nope"},
        "ael_lab.variants": {"broken-variant": "ael_test_plugin_broken_v:Nope"},
    }, {"ael_test_plugin_broken": "raise RuntimeError('the plugin author forgot a file')\n",
        "ael_test_plugin_broken_m": "import no_such_module_anywhere\n",
        "ael_test_plugin_broken_v": "Nope = 3\n"})
    monkeypatch.syspath_prepend(str(fresh_plugins))
    plugins.load(plugins.METHODS, methods._admit_plugin)  # as the import of engine.methods does
    plugins.load(plugins.VARIANTS, variant_set._admit_plugin)
    assert main(["run", "synthetic", "--seeds", "1", "--selector", "ts", "--episodes", "20", "--quiet"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3, err
    assert any("plugin 'broken-world' (ael_lab.scenarios from broken_world, ael_test_plugin_broken) was left out: "
               "RuntimeError: the plugin author forgot a file" in line for line in err)
    assert any("'broken-method'" in line and "ModuleNotFoundError" in line for line in err)
    assert any("'broken-variant'" in line and "not an engine.variants.Variant subclass" in line for line in err)
    assert "broken-world" not in scenarios.scenario_names() and "broken-method" not in METHODS


def test_a_plugin_world_method_and_variant_are_registered_from_their_entry_points(fresh_plugins, monkeypatch,
                                                                                   capsys):
    fake_distribution(fresh_plugins, "good_plugin", {
        "ael_lab.scenarios": {"lamp-world": "ael_test_plugin_lamps"},
        "ael_lab.methods": {"always-first": "ael_test_plugin_method:AlwaysFirst"},
        "ael_lab.variants": {"quiet": "ael_test_plugin_variant:Quiet"},
    }, {
        "ael_test_plugin_lamps": (EXAMPLE / "ael_plugin_world.py").read_text().replace(
            '"plugin-world"', '"lamp-world"').replace("ael_plugin_world:", "ael_test_plugin_lamps:"),
        "ael_test_plugin_method": ("from engine.bandits import RoundRobin\nfrom engine.method_base import Method\n"
                                   "class AlwaysFirst(Method):\n    name = 'always-first'\n"
                                   "    summary = 'every arm in turn (a plugin method)'\n"
                                   "    selector_class = RoundRobin\n"),
        "ael_test_plugin_variant": ("from engine.variants import Variant\nclass Quiet(Variant):\n"
                                    "    name = 'quiet'\n    summary = 'changes nothing (a plugin variant)'\n"),
    })
    monkeypatch.syspath_prepend(str(fresh_plugins))
    plugins.load(plugins.METHODS, methods._admit_plugin)
    plugins.load(plugins.VARIANTS, variant_set._admit_plugin)
    assert "always-first" in METHODS and "quiet" in VARIANTS
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "lamp-world: two lamps" in out and "always-first" in out and "--lamps-on" in out
    from ael_tui.widgets.opening import selectors_of

    assert selectors_of("lamp-world") == ["ts", "ucb1", "fixed:red", "oracle"]  # what the compare view offers
    assert main(["run", "lamp-world", "--seeds", "1", "--selector", "ts,always-first", "--variant", "quiet",
                 "--quiet"]) == 0
    assert plugins.NOTICES == []


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def test_the_example_plugin_installs_into_a_fresh_environment_and_runs(tmp_path):
    """`python -m venv --system-site-packages`, the example pip-installed offline into it, then
    `ael-lab run plugin-world` there. The venv sees this interpreter's packages (and this
    checkout) through a .pth file, as a venv made from an installed ael-lab would."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
                   check=True, capture_output=True, timeout=300)
    python = _venv_python(venv)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    here = [p for p in sys.path if p and Path(p).is_dir() and "site-packages" in p]
    Path(site, "ael_lab_parent.pth").write_text("\n".join([str(ROOT), *here]) + "\n")
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONPATH": str(ROOT)}
    copy = tmp_path / "plugin-world"  # build from a copy: the checkout stays clean
    copy.mkdir()
    for f in EXAMPLE.iterdir():
        if f.is_file():
            (copy / f.name).write_bytes(f.read_bytes())
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                           "--no-build-isolation", "--no-index", str(copy)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    out = tmp_path / "run.json"
    ran = subprocess.run([str(python), "-m", "ael_cli.main", "run", "plugin-world", "--seeds", "1,2",
                          "--selector", "all", "--lamps-on", "80", "--workers", "1", "--json", str(out)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert ran.returncode == 0, ran.stderr
    assert "plugin-world: 2 seed(s)" in ran.stdout and ran.stderr == ""
    runs = json.loads(out.read_text())["runs"]
    assert {r["selector"] for r in runs} == {"ts", "ucb1", "fixed:red", "oracle"}
    assert all(r["episodes"] == 80 for r in runs)
    # and without the plugin installed, the same command names the worlds it knows
    plain = subprocess.run([sys.executable, "-m", "ael_cli.main", "run", "plugin-world", "--quiet"],
                           capture_output=True, text=True, env=env, timeout=600)
    assert plain.returncode == 2 and "unknown scenario 'plugin-world'" in plain.stderr


async def test_the_lab_starts_with_a_broken_plugin_and_says_so_in_one_notice(fresh_plugins, monkeypatch):
    from ael_tui.files.start_screen import StartScreen
    from tests.tui_helpers import make_app, notifications, settle

    fake_distribution(fresh_plugins, "broken_lab_world", {
        "ael_lab.scenarios": {"broken-lab-world": "ael_test_plugin_broken_lab"}},
        {"ael_test_plugin_broken_lab": "raise ImportError('cannot import name Spec from engine')\n"})
    monkeypatch.syspath_prepend(str(fresh_plugins))
    scenarios.scenario_names()  # as `ael-lab` does while building its command line, before the lab opens
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        shown = [n for n in notifications(app) if "broken-lab-world" in n]
        assert len(shown) == 1 and "\n" not in shown[0] and "ImportError" in shown[0]
        assert "broken-lab-world" not in scenarios.scenario_names()
