"""An extension panel draws its data again only when it differs (ael_tui/lab/view_panel.py):
every view of the lab gives each panel its data, and each update re-lays the screen out."""

import numpy as np
from rich.text import Text

from ael_tui.lab.view_panel import ViewPanel
from engine.variants.panel_views import ToolRow


class Counting(ViewPanel):
    drawn: list = []
    draw = staticmethod(lambda data: Counting.drawn.append(data) or Text(str(data)))

    def update(self, content="") -> None:  # no app here: what is drawn is `shown`
        pass


def test_equal_data_is_not_drawn_again_and_changed_data_or_the_same_object_is():
    Counting.drawn = []
    panel = Counting()
    row = ToolRow("get_news", 1.0, 2.0, 3, None, True, None, None)
    panel.show([row])
    panel.show([ToolRow("get_news", 1.0, 2.0, 3, None, True, None, None)])  # equal, a new object
    assert len(Counting.drawn) == 1
    panel.show([ToolRow("get_news", 2.0, 2.0, 4, 0.5, True, None, None)])  # a step changed it
    assert len(Counting.drawn) == 2 and "2.0" in str(panel.shown)
    same = Counting.drawn[-1]
    same[0].pulls = 9  # changed in place: the same object is drawn again
    panel.show(same)
    assert len(Counting.drawn) == 3


def test_data_whose_equality_is_not_plain_is_drawn_each_time():
    Counting.drawn = []
    panel = Counting()
    panel.show({"theta": np.zeros(3)})
    panel.show({"theta": np.zeros(3)})  # `==` of arrays is an array: no answer, so drawn
    assert len(Counting.drawn) == 2
