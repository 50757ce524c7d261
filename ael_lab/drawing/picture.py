"""One picture of a run as SVG text: `picture(session, kind)`, what `ael-lab chart SAVE --kind
KIND --svg OUT` writes and a notebook's chart shows, drawn by the same code as the lab's exports
(picture_svg.py) from the same numbers (reads.py, data.py, curves.py). No Textual, no Rich.

    arms     which policy played when, regimes and decisions marked (the lab's strip)
    reward   cumulative reward
    regret   cumulative regret against the oracle: an oracle session is run on the run's
             world and seed to its episode (offline); a world without an oracle gets the best
             arm in hindsight, and the chart's title says which
    regimes  mean accuracy (or reward) per true regime, as bars
"""

from __future__ import annotations

from engine.errors import AELError

KINDS = ("arms", "reward", "regret", "regimes")
CURVE = "cyan"


def oracle_rewards(session) -> list[float] | None:
    """The oracle's reward per episode on the save's world and seed, up to the save's
    episode; None where the world offers no oracle."""
    from ael_lab.extend.lists import selectors_of
    from ael_lab.side_by_side import build_compare

    if "oracle" not in selectors_of(session.config.scenario):
        return None
    oracle = build_compare(session.config, ["oracle"])["oracle"]
    oracle.run(until=len(session.history))
    return [float(r["reward"]) for r in oracle.history]


def picture(session, kind: str) -> str:
    """The SVG text of `kind` for `session`."""
    import numpy as np

    from ael_lab.drawing.colours import arm_colours
    from ael_lab.drawing.curves import cumulative_chart, regret_chart
    from ael_lab.drawing.data import Reference, regime_means
    from ael_lab.drawing.reads import picture_data
    from ael_lab.drawing.picture_svg import bars_svg, chart_svg, strip_svg

    d = picture_data(session)
    if not d.policies:
        raise AELError("the save has no episodes yet: nothing to draw")
    if kind == "arms":
        return strip_svg([d], arm_colours([d]), f"which policy played when · {d.name}")
    if kind == "reward":
        return chart_svg(cumulative_chart([(d, CURVE)]))
    if kind == "regret":
        rewards = oracle_rewards(session)
        reference = None if rewards is None else Reference(
            "vs an oracle run (same world and seed)", "vs an oracle run", per_episode=np.asarray(rewards))
        return chart_svg(regret_chart([(d, CURVE)], reference))
    return bars_svg([(d.name, CURVE, regime_means(d.values, d.regimes, d.regime_names))], d.metric)
