"""Every panel of the lab comes from its panel registry (ael_tui/lab/panels.py): the lab
screen composes, titles and feeds them in one loop each, so a new panel is one module and
one registry entry, and the screen is not edited."""

from __future__ import annotations

import ast
import inspect
import textwrap

import pytest

from ael_tui.lab import panels
from ael_tui.lab.lab_screen import LabScreen


def _called(function) -> set[str]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def test_the_lab_screen_builds_no_panel_by_hand():
    registered = {p.widget.__name__ for p in panels.PANELS.values()}
    assert _called(LabScreen.compose) & registered == set()


def test_the_core_panels_are_registry_entries_in_their_rows():
    core = {p.name: p.row for p in panels.PANELS.values() if p.core}
    assert core == {"posteriors": "bandit", "density": "bandit", "progress-box": "progress",
                    "reflection": "progress", "memory": "memory", "log": "memory"}
    assert [p for p in panels.extension_panels() if p.core or p.row != "variants"] == []


def test_a_panel_in_no_row_of_the_lab_is_refused():
    with pytest.raises(ValueError, match="its row is one of"):
        panels.register_panel(panels.LabPanel("sidebar", "Sidebar", object, lambda s: None,
                                              variants=("skills",), row="sidebar"))
    assert "sidebar" not in panels.PANELS
