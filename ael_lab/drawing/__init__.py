"""The pictures' parts, without Textual or Rich: what a line chart is (lines.py), the numbers
of a run's pictures (reads.py from a session, data.py), the curves (curves.py), each drawn as
SVG (picture_svg.py), one picture of a run (picture.py: `ael-lab chart` and `Session.chart`) and the
colours by name (colours.py). The lab draws the same charts in terminal cells from these.

Public for the front ends that draw (provisional: docs/api.md); a script wants
`ael_lab.Session.chart` instead."""

from ael_lab.drawing.colours import ARM_COLOURS, DECISION_COLOURS, arm_colour, arm_colours, hex_of
from ael_lab.drawing.curves import (CURVE, KINDS as CURVE_KINDS, REGIME, UNIT, cumulative_chart, reference_for,
                                    regret_chart)
from ael_lab.drawing.data import (Reference, RegimeMean, column_of, cumulative, hindsight_reference, regime_means,
                                  regret, strip_cells)
from ael_lab.drawing.lines import Axis, Chart, Series, quarters, x_ticks
from ael_lab.drawing.picture import KINDS as PICTURE_KINDS, picture
from ael_lab.drawing.reads import (APPROVED, NEW_ARM, REJECTED, PictureData, PictureSource, metric_name,
                                   picture_source)
from ael_lab.drawing.picture_svg import bars_svg, chart_svg, strip_svg

__all__ = ["ARM_COLOURS", "DECISION_COLOURS", "arm_colour", "arm_colours", "hex_of", "CURVE_KINDS", "REGIME", "UNIT",
           "cumulative_chart", "regret_chart", "CURVE", "reference_for", "Reference", "cumulative",
           "hindsight_reference", "regret", "RegimeMean", "column_of", "regime_means", "strip_cells",
           "Axis", "Chart", "Series", "quarters", "x_ticks", "PICTURE_KINDS", "picture", "APPROVED", "NEW_ARM",
           "REJECTED", "PictureData", "PictureSource", "metric_name", "picture_source", "bars_svg", "chart_svg",
           "strip_svg"]
