"""The lamp-log variant's panel in the lab: each lamp's lit and dark nights.

Declared in the entry-point group `ael_lab.panels`, which only the lab reads, so this module
(the only one of the package that imports Textual) is never imported by `ael-lab run`. The
panel draws what the variant's `panel_view` returns (`variant_view`): the lab reads nothing
else of the variant."""

from rich.table import Table

from ael_tui.lab.panels import LabPanel
from ael_tui.lab.view_panel import ViewPanel
from engine.variants.panel_views import variant_view


def lamp_table(rows) -> Table:
    table = Table("lamp", "lit", "dark", box=None, pad_edge=False)
    for lamp, lit, dark in rows or []:
        table.add_row(lamp, str(lit), str(dark))
    return table


class LampLogPanel(ViewPanel):
    draw = staticmethod(lamp_table)


PANEL = LabPanel("lamp-log", "Lamps lit", LampLogPanel, variant_view("lamp-log"), variants=("lamp-log",))
