"""Argument types of the `ael-lab` command, checked where they are parsed.

Each is an argparse `type=`: it turns the text into a value or raises
`AELError` naming the flag and what it expects, before anything runs. Seed
lists are counted before they are built, so `1..1000000000000` is refused in
microseconds instead of exhausting memory. The bounds are the save's
(engine/limits.py, which the save schema reads too): a run that starts can
always be saved and resumed.
"""

from __future__ import annotations

import math
from typing import Callable

from ael_lab import AELError
from ael_lab.runs import CONTEXT_MAX, COUNT_MAX, POSITIVE_MAX, RETRIES_MAX, SEED_MAX

MAX_SEEDS = 100_000


def parse_seeds(text: str) -> list[int]:
    """'42,123' or '1..200' (inclusive) or a mix: '1..3,42'; at most MAX_SEEDS seeds,
    each an integer in 0..SEED_MAX, none listed twice."""
    spans: list[tuple[int, int]] = []
    total = 0
    for part in text.split(","):
        part = part.strip()
        try:
            if ".." in part:
                lo, hi = (int(x) for x in part.split("..", 1))
            else:
                lo = hi = int(part)
        except ValueError:
            shown = repr(part) if part else "an empty item"
            raise AELError(f"--seeds: {shown} is not a seed; give integers like 42,123 or a range 1..200") from None
        if hi < lo:
            raise AELError(f"--seeds: the range {part} is reversed; a range runs from low to high: {hi}..{lo}")
        if lo < 0:
            raise AELError("--seeds: seeds must be non-negative integers")
        if hi > SEED_MAX:
            raise AELError(f"--seeds: {hi} is too large; a seed is at most {SEED_MAX} (2**63 - 1)")
        total += hi - lo + 1
        if total > MAX_SEEDS:
            raise AELError(f"--seeds: more than {MAX_SEEDS:,} seeds; run at most {MAX_SEEDS:,} at a time")
        spans.append((lo, hi))
    seeds = [s for lo, hi in spans for s in range(lo, hi + 1)]
    if len(set(seeds)) != len(seeds):
        raise AELError("--seeds: a seed is listed twice")
    return seeds


def _number(flag: str, text: str, expected: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise AELError(f"{flag}: {text!r} is not a number; expected {expected}") from None
    if not math.isfinite(value):
        raise AELError(f"{flag}: {text!r} is not a finite number; expected {expected}")
    return value


def _whole(flag: str, text: str, expected: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise AELError(f"{flag}: {text!r} is not a whole number; expected {expected}") from None


def integer(flag: str, low: int, what: str, high: int | None = None) -> Callable[[str], int]:
    """A whole number >= low (and <= high, if given; `what` says what it counts, for the message)."""
    def parse(text: str) -> int:
        value = _whole(flag, text, what)
        if value < low:
            raise AELError(f"{flag}: {value} is too small; expected {what}")
        if high is not None and value > high:
            raise AELError(f"{flag}: {value} is too large; expected {what}, at most {high}")
        return value
    return parse


def positive(flag: str, what: str) -> Callable[[str], float]:
    """A finite number in (0, POSITIVE_MAX] (`what`: its unit, for the message)."""
    def parse(text: str) -> float:
        value = _number(flag, text, f"a positive number of {what}")
        if not 0 < value <= POSITIVE_MAX:
            raise AELError(f"{flag}: {value:g} is outside (0, {POSITIVE_MAX:g}]; expected a positive number of {what}")
        return value
    return parse


def unit_float(flag: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        value = _number(flag, text, "a number between 0 and 1")
        if not 0 <= value <= 1:
            raise AELError(f"{flag}: {value:g} is outside 0..1; expected a number between 0 and 1")
        return value
    return parse


def prior(text: str) -> tuple[float, float]:
    expected = "two finite positive numbers alpha,beta (e.g. 1,1)"
    parts = text.split(",")
    if len(parts) != 2:
        raise AELError(f"--prior: {text!r} should be {expected}")
    a, b = (_number("--prior", p.strip(), expected) for p in parts)
    if a <= 0 or b <= 0:
        raise AELError(f"--prior: {text!r} should be {expected}")
    if max(a, b) > POSITIVE_MAX:
        raise AELError(f"--prior: {max(a, b):g} is too large; alpha and beta are at most {POSITIVE_MAX:g}")
    return a, b


def fraction_pair(text: str) -> tuple[float, float]:
    expected = "two fractions train,val (e.g. 0.6,0.2)"
    parts = text.split(",")
    if len(parts) != 2:
        raise AELError(f"--split: {text!r} should be {expected}")
    a, b = (_number("--split", p.strip(), expected) for p in parts)
    return a, b


episodes = integer("--episodes", 1, "a positive number of episodes", COUNT_MAX)
until = integer("--until", 0, "an episode number (0 or more)", COUNT_MAX)
warmup = integer("--warmup", 0, "0 or more episodes", COUNT_MAX)
reflect_every = integer("--reflect-every", 1, "a positive number of episodes", COUNT_MAX)
reflect_window = integer("--reflect-window", 1, "a positive number of episodes", COUNT_MAX)
reflect_threshold = unit_float("--reflect-threshold")
seed = integer("--seed", 0, "a non-negative integer", SEED_MAX)
llm_timeout = positive("--llm-timeout", "seconds")
llm_retries = integer("--llm-retries", 0, "0 or more retries", RETRIES_MAX)
llm_context = integer("--llm-context", 256, "the model's context window in tokens (256 or more)", CONTEXT_MAX)


def check_seed(value: int, what: str = "seed") -> int:
    """A seed typed somewhere other than a flag (the start screen): the same bounds."""
    if not 0 <= value <= SEED_MAX:
        raise AELError(f"{what}: {value} is outside 0..{SEED_MAX}; give a non-negative integer below 2**63")
    return value
