"""The deterministic ticket stream (spec §4).

`generate(seed)` is a pure function of the seed: one generator,
`numpy.random.default_rng([seed, 0])`, drawn in exactly the spec's order, so
the canonical stream (and its check hash, 3fa4a8c64b334ca4 for seed 42) is
reproduced bit for bit. Every value in a ticket is a plain Python type
(numpy's `choice` over a list of strings returns `numpy.str_`, hence the
`str()` calls), so `json.dumps` of the stream is the canonical text.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

import numpy as np

from .bank import (
    AMBIGUOUS, BANK, ENDPOINTS, FILLER, GENERIC, HEX_DIGITS, MIX, N_EPISODES, P_ENDPOINT_NOISE,
    P_FILLER, P_KEEP_OLD_STYLE, P_SIGNAL, R3_MAP, REGIME_STARTS, ROUTES, SID_LENGTH, SLOTS,
)

_SLOT = re.compile(r"\{(\w+)\}")

Ticket = dict[str, Any]
"""One ticket: keys episode, regime, endpoint, text, gold_route, has_route_signal, in that order."""


def regime_of(t: int) -> int:
    """The regime of episode t: R0=[0,300), R1=[300,600), R2=[600,900), R3=[900,1200)."""
    g = 0
    for i, start in enumerate(REGIME_STARTS):
        if t >= start:
            g = i
    return g


def _pick(seq: tuple[str, ...], rng: np.random.Generator) -> str:
    """`str(rng.choice(list(seq)))` with the same draw (`choice` without p draws
    `integers(0, len)`), without building an array of strings for every slot."""
    return seq[int(rng.integers(len(seq)))]


_HEX = np.array(list(HEX_DIGITS))
# `choice(n, p=MIX[g])` draws one uniform and searches the normalised cumulative sum:
# the same, with the sums made once instead of per ticket
_MIX_CDF = [np.cumsum(np.array(m, dtype=np.float64)) for m in MIX]
for _cdf in _MIX_CDF:
    _cdf /= _cdf[-1]


def _fill(template: str, rng: np.random.Generator) -> str:
    """Fill `{slot}`s left to right, one draw each, in the order they appear."""
    def draw(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "sid":
            return "sess_" + "".join(_HEX[rng.integers(0, len(_HEX), SID_LENGTH)].tolist())
        return _pick(SLOTS[key], rng)

    return _SLOT.sub(draw, template)


def _ticket(t: int, rng: np.random.Generator) -> Ticket:
    g = regime_of(t)
    route = ROUTES[int(_MIX_CDF[g].searchsorted(rng.random(), side="right"))]
    if g == 3:
        endpoint = R3_MAP[route] if rng.random() >= P_ENDPOINT_NOISE else ENDPOINTS[int(rng.integers(len(ENDPOINTS)))]
        signal = False
        body = _pick(AMBIGUOUS, rng)
    else:
        endpoint = ENDPOINTS[int(rng.integers(len(ENDPOINTS)))]
        signal = bool(rng.random() < P_SIGNAL[g])
        if signal:
            style = g
            # No draw in R0: there is no older style to keep.
            if g > 0 and rng.random() < P_KEEP_OLD_STYLE:
                style = g - 1
            body = _pick(BANK[style][route], rng)
        else:
            body = _pick(GENERIC[g], rng)
    text = _fill(body, rng)
    if rng.random() < P_FILLER:
        text += " " + _pick(FILLER[g], rng)
    return {"episode": t, "regime": g, "endpoint": endpoint, "text": text,
            "gold_route": route, "has_route_signal": signal}


def generate(seed: int) -> list[Ticket]:
    """The 1,200 tickets of `seed`, a fresh list of fresh dicts (callers may mutate it)."""
    return [dict(t) for t in _cached(int(seed))]


@lru_cache(maxsize=16)
def _cached(seed: int) -> tuple[Ticket, ...]:
    rng = np.random.default_rng([seed, 0])
    return tuple(_ticket(t, rng) for t in range(N_EPISODES))


def tickets(seed: int) -> tuple[Ticket, ...]:
    """The cached stream of `seed`, shared between callers: read it, do not mutate it."""
    return _cached(int(seed))


def export_jsonl(seed: int, file: str | Path | IO[str]) -> None:
    """Write the stream of `seed` as JSONL, one ticket a line, keys in canonical order."""
    lines = "".join(json.dumps(t) + "\n" for t in tickets(seed))
    if hasattr(file, "write"):
        file.write(lines)  # type: ignore[union-attr]
    else:
        Path(file).write_text(lines, encoding="utf-8")
