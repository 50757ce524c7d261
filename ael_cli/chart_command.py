"""`ael-lab chart SAVE --kind arms|reward|regret|regimes --svg OUT`: one picture of a saved
run as SVG, for slides, without opening the lab.

    arms     which policy played when, regimes and decisions marked (the lab's strip)
    reward   cumulative reward
    regret   cumulative regret against the oracle: an oracle session is run on the save's
             world and seed to the save's episode (offline, a few seconds for a
             1,200-episode support run); a world without an oracle gets the best arm in
             hindsight, and the chart's title says which
    regimes  mean accuracy (or reward) per true regime, as bars

Reads the save's history only: nothing of the saved run is replayed. The picture is drawn by
ael_lab/drawing/picture.py (a notebook's `s.chart(kind)` draws the same), without Textual or Rich. OUT is written
atomically; refused in one line: the save itself, an AEL Lab session, a folder, a
symlink, a missing folder.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ael_lab import AELError
from ael_lab.drawing import PICTURE_KINDS as KINDS, picture
from ael_lab.store import check_target, write_text_atomic


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
        from ael_lab.store import is_session_file

        if is_session_file(path):
            raise AELError(f"--svg: {path} is an AEL Lab session; name another file for the picture")
    return path


def chart_command(args: argparse.Namespace) -> int:
    from ael_lab.store import load_session
    from ael_lab.worlds import make_scenario

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
