"""`ael-lab chart SAVE --kind arms|reward|regret|regimes --svg OUT`: one picture of a saved
run as SVG, for slides, without opening the lab.

    arms     which policy played when, regimes and decisions marked (the lab's strip)
    reward   cumulative reward
    regret   cumulative regret against the oracle: an oracle session is run on the save's
             world and seed to the save's episode (offline, a few seconds for a
             1,200-episode support run); a world without an oracle gets the best arm in
             hindsight, and the chart's title says which
    regimes  mean accuracy (or reward) per true regime, as bars

Reads the save's history only: nothing of the saved run is replayed. OUT is written
atomically; refused in one line: the save itself, an AEL Lab session, a folder, a
symlink, a missing folder.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from engine.store.atomic import check_target, write_text_atomic
from engine.errors import AELError

KINDS = ("arms", "reward", "regret", "regimes")
CURVE = "cyan"


def add_parser(sub) -> None:
    ch = sub.add_parser("chart", help="one picture of a saved run as SVG (arms, reward, regret, regimes)")
    ch.add_argument("file", metavar="SAVE", help="a saved session")
    ch.add_argument("--kind", choices=KINDS, required=True,
                    help="arms: which policy played when; reward: cumulative reward; regret: cumulative regret "
                         "against an oracle run; regimes: mean per true regime")
    ch.add_argument("--svg", required=True, metavar="OUT", help="where to write the SVG")


def check_out(out: str, save: str) -> Path:
    path = Path(out).expanduser()
    if os.path.realpath(path) == os.path.realpath(Path(save).expanduser()):
        raise AELError(f"--svg {out} is the save itself: name another file")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise AELError(f"--svg: cannot write {path}: folder {folder} does not exist")
    check_target(path)
    if path.exists() and path.stat().st_size:
        from engine.store.persistence import is_session_file

        if is_session_file(path):
            raise AELError(f"--svg: {path} is an AEL Lab session; name another file for the picture")
    return path


def oracle_rewards(session) -> list[float] | None:
    """The oracle's reward per episode on the save's world and seed, up to the save's
    episode; None where the world offers no oracle."""
    from ael_tui.compare.lockstep import build_compare
    from ael_tui.widgets.opening import selectors_of

    if "oracle" not in selectors_of(session.config.scenario):
        return None
    oracle = build_compare(session.config, ["oracle"])["oracle"]
    oracle.run(until=len(session.history))
    return [float(r["reward"]) for r in oracle.history]


def picture(session, kind: str) -> str:
    """The SVG text of `kind` for `session`."""
    import numpy as np

    from ael_tui.widgets.charts.arm_strip import arm_colours
    from ael_tui.widgets.charts.curves import cumulative_chart, regret_chart
    from ael_tui.widgets.charts.data import Reference, regime_means
    from ael_tui.widgets.charts.reads import picture_data
    from ael_tui.widgets.charts.picture_svg import bars_svg, chart_svg, strip_svg

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


def chart_command(args: argparse.Namespace) -> int:
    from engine.store.persistence import load_session
    from scenarios import make_scenario

    out = check_out(args.svg, args.file)
    session = load_session(args.file, make_scenario)
    svg = picture(session, args.kind)
    try:
        write_text_atomic(out, svg)
    except OSError as err:
        raise AELError(f"--svg: cannot write {out}: {err.strerror or err}") from None
    print(f"wrote {out}: {args.kind} of {session.config.scenario} seed {session.config.seed}, "
          f"{len(session.history)} episodes")
    return 0
