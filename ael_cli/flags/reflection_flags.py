"""The reflection gate's flags, for `run` and `lab` alike: declared once, read once.

`sweep` takes the same settings as axes (lists of values, ael_cli/sweep/flags.py)
with the same value types (values.py)."""

from __future__ import annotations

import argparse
from typing import Any

from ael_lab import AELError

from . import values as types

TRIGGERS = ("diagnose", "paper")


def add_reflection_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--trigger", help="reflection trigger: diagnose or paper (default: the scenario's)")
    parser.add_argument("--reflect-every", type=types.reflect_every, help="slow-window length: reflect every N episodes")
    parser.add_argument("--reflect-window", type=types.reflect_window, help="trailing window of the reflection gate")
    parser.add_argument("--reflect-threshold", type=types.reflect_threshold, help="threshold of the reflection gate")


def reflector_options(args: argparse.Namespace) -> dict[str, Any]:
    """The reflector's options these flags set (the scenario's defaults for the rest)."""
    opts: dict[str, Any] = {}
    if args.trigger is not None:
        if args.trigger not in TRIGGERS:
            raise AELError(f"--trigger: {args.trigger!r} is not diagnose or paper")
        opts["trigger"] = args.trigger
    if args.reflect_every is not None:
        opts["cadence"] = args.reflect_every
    if args.reflect_window is not None:
        opts["window"] = args.reflect_window
    if args.reflect_threshold is not None:
        opts["threshold"] = args.reflect_threshold
    return opts
