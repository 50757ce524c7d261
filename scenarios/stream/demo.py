"""A generated labelled stream in which, in the last regime, one metadata column starts to
tell the label and the text stops telling it (`ael-lab export-stream stream --seed N`).

Six labels; four regimes. In R0..R2 (150 rows each) a row's text is three words of its
label's vocabulary for that regime plus two filler words, so the text tells the label
(and the vocabulary changes with the regime). In R3 (250 rows) every text is five words
drawn from one shared vocabulary whatever the label, so the text tells nothing, while
`source` (12 values) now maps to the label, two sources per label. `region` (5 values) and
`channel` (4 values) never tell anything. Before R3, `source` is drawn independently of the
label too. So the last regime can only be solved by retrieving past rows with the same
`source`, and nothing in the stream world knows that.

Columns: id, time, text, label, source, region, channel, phase. One generator,
`default_rng([seed, 7])`: the stream is a pure function of (seed, n_rows).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from engine.safe_csv import write_rows

LABELS = ("billing", "login", "crash", "network", "storage", "display")
SOURCES = tuple(f"src{i:02d}" for i in range(12))
REGIONS = ("north", "south", "east", "west", "central")
CHANNELS = ("email", "chat", "phone", "web")
REGIME_SHARE = (0.2143, 0.2143, 0.2143)  # of the rows in R0..R2 (150 of 700 each); R3 has the rest
N_ROWS = 700
WORDS_PER_LABEL = 12
INFORMATIVE = "source"
META = ("source", "region", "channel")


def _vocab(rng: np.random.Generator, prefix: str, n: int) -> list[str]:
    letters = np.array(list("bcdfghklmnprstvz"))
    vowels = np.array(list("aeiou"))
    out: set[str] = set()
    while len(out) < n:
        k = int(rng.integers(2, 4))
        out.add(prefix + "".join(f"{rng.choice(letters)}{rng.choice(vowels)}" for _ in range(k)))
    return sorted(out)


def make_demo_stream(seed: int, n_rows: int = N_ROWS) -> list[dict[str, Any]]:
    """The rows of the demo stream for `seed`, in time order."""
    if n_rows < 8:
        raise ValueError("the demo stream needs at least 8 rows")
    rng = np.random.default_rng([int(seed), 7])
    bounds = np.cumsum([int(round(s * n_rows)) for s in REGIME_SHARE])
    filler = _vocab(rng, "f", 40)
    shared = _vocab(rng, "q", 30)
    per_regime = [{lab: _vocab(rng, f"{'abc'[r]}{i}", WORDS_PER_LABEL) for i, lab in enumerate(LABELS)}
                  for r in range(3)]
    owner = rng.permutation(np.repeat(np.arange(len(LABELS)), len(SOURCES) // len(LABELS)))
    sources_of = {lab: [s for s, o in zip(SOURCES, owner) if o == i] for i, lab in enumerate(LABELS)}
    rows = []
    for t in range(n_rows):
        regime = int(np.searchsorted(bounds, t, side="right"))
        label = LABELS[int(rng.integers(len(LABELS)))]
        if regime < 3:
            words = list(rng.choice(per_regime[regime][label], 3)) + list(rng.choice(filler, 2))
            source = SOURCES[int(rng.integers(len(SOURCES)))]
        else:
            words = list(rng.choice(shared, 5))
            source = sources_of[label][int(rng.integers(len(sources_of[label])))]
        rng.shuffle(words)
        rows.append({"id": t, "time": 1_700_000_000 + 60 * t, "text": " ".join(words), "label": label,
                     "source": source, "region": REGIONS[int(rng.integers(len(REGIONS)))],
                     "channel": CHANNELS[int(rng.integers(len(CHANNELS)))], "phase": f"R{regime}"})
    return rows


def write_demo(path: str | Path, seed: int, n_rows: int = N_ROWS) -> Path:
    """Write the demo stream as CSV or JSONL (by the extension)."""
    path = Path(path)
    rows = make_demo_stream(seed, n_rows)
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        with open(path, "w", newline="", encoding="utf-8") as f:
            write_rows(f, list(rows[0]), rows, lineterminator="\r\n")  # the csv module's own: the bytes as before
    return path


def sample_options(folder: str | Path) -> dict[str, Any]:
    """The world's sample data (`ScenarioSpec.sample_data`): the demo stream written into
    `folder`, and the options that read it."""
    path = write_demo(Path(folder) / "sample-stream.csv", seed=3)
    return {"data": str(path), "text": "text", "label": "label", "meta": list(META), "regime": "phase"}
