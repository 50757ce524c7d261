"""Issue 30 item 3: the lab screen's concerns are objects it composes (each owning its state,
logic and a public interface, talking by messages), not mixins of the screen; the screen keeps
the keys' bindings and hands each over to its object in one declared line."""

from __future__ import annotations

from textual.screen import Screen
from textual.widget import Widget

from ael_tui.actions import SaysWhy, actions_for
from ael_tui.compare.compare_screen import CompareScreen
from ael_tui.lab.lab_decisions import Decisions
from ael_tui.lab.lab_files import Files
from ael_tui.lab.lab_records import Records
from ael_tui.lab.lab_runs import LabRuns
from ael_tui.lab.time_travel_keys import TimeTravelKeys
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.lab.lab_tour import Tour
from ael_tui.widgets.run_controls import RunControls

LAB_OBJECTS = {"runs": LabRuns, "tour": Tour, "decisions": Decisions, "records": Records, "files": Files,
               "travel": TimeTravelKeys}


def test_the_lab_and_compare_screens_mix_nothing_in():
    assert LabScreen.__bases__ == (SaysWhy, Screen)
    assert CompareScreen.__bases__ == (SaysWhy, Screen)
    for kind in (*LAB_OBJECTS.values(), RunControls):
        assert issubclass(kind, Widget) and "display: none" in kind.DEFAULT_CSS, kind


def _handed_over(screen: type[Screen], scope: str, owners: dict[str, type]) -> list[str]:
    """Every action of `scope` exists on the screen, and one handed over names a method its
    object has (a typo would fail only when the key is pressed)."""
    handed = []
    for a in actions_for(scope):
        name = a.action.split("(")[0]
        action = getattr(screen, f"action_{name}", None)
        assert callable(action), f"{screen.__name__} has no action_{name} for {a.id}"
        target = getattr(action, "hands_over", None)
        if target is not None:
            owner, method = target
            assert callable(getattr(owners[owner], method, None)), f"{a.id}: {owner}.{method} does not exist"
            handed.append(a.id)
    return handed


def test_every_lab_key_is_handed_to_a_method_its_object_has():
    handed = _handed_over(LabScreen, "lab", LAB_OBJECTS)
    assert {"lab.step", "lab.tour", "lab.decide", "lab.results", "lab.save"} <= set(handed)
    assert set(_handed_over(CompareScreen, "compare", {"runs": RunControls})) >= {"compare.step", "compare.pause"}
