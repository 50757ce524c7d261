"""A picture of the lab mid-run, for the README and slides.

    python -m ael_tui.screenshot docs/lab.svg
    python -m ael_tui.screenshot out.svg --scenario synthetic --episodes 120 --size 120x40
    python -m ael_tui.screenshot out.svg --compare ts,ts+reflection,oracle

Builds the session (approvals automatic), runs it to the episode asked for,
opens the lab headless at the size asked for, waits until every panel has
been drawn, and saves the screen as SVG. Deterministic: the same arguments
give the same picture (no clock or cursor on screen).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from ael_lab import AELError


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give COLUMNSxROWS, e.g. 160x48") from None
    return w, h


async def shoot(path: Path, scenario: str, seed: int, episodes: int, size: tuple[int, int],
                compare: list[str] | None) -> None:
    from ael_tui.app import AelLab
    from ael_tui.compare.lockstep import CompareHost, build_compare
    from ael_tui.config import LabSettings
    from ael_tui.compare.compare_screen import CompareScreen
    from ael_tui.widgets.opening import NewSession, build_session

    session = build_session(NewSession(scenario, seed, "ts+reflection", "auto"))
    settings = LabSettings(delay=0.0, saves_dir=path.parent)
    host = None
    if compare:
        host = CompareHost(build_compare(session.config, compare), settings)
        while host.t < episodes and not host.done:
            host.step_all()
    else:
        session.run(until=episodes)
    app = AelLab(session, settings=settings, cursor_blink=False, show_times=False)
    async with app.run_test(size=size) as pilot:
        if host is not None:
            app.push_screen(CompareScreen(host))
        for _ in range(2):
            await app.workers.wait_for_complete()
            await pilot.pause()
        app.screen.redraw(force=True)
        await pilot.pause(0.3)
        app.clear_notifications()
        await pilot.pause()
        app.save_screenshot(filename=path.name, path=str(path.parent))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ael_tui.screenshot", description=__doc__.split("\n\n")[0])
    p.add_argument("path", help="the SVG file to write")
    p.add_argument("--scenario", default="support")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--episodes", type=int, default=1000, help="run to this episode first (default 1000)")
    p.add_argument("--size", type=_size, default=(160, 48), help="COLUMNSxROWS (default 160x48)")
    p.add_argument("--compare", help="show the compare view with these selectors (comma list) instead")
    args = p.parse_args(argv)
    path = Path(args.path)
    if not path.parent.is_dir():
        print(f"screenshot: folder {path.parent} does not exist", file=sys.stderr)
        return 2
    try:
        asyncio.run(shoot(path, args.scenario, args.seed, args.episodes, args.size,
                          args.compare.split(",") if args.compare else None))
    except AELError as err:
        print(f"screenshot: {err}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
