"""A generated labelled stream in which 20 labels new to memory appear halfway, with no
metadata column (issue 39's Done-when; `python -m bench.new_labels` runs it).

Before row n/2: 20 labels, each row's text three words of its label's 12-word vocabulary
plus two filler words. From row n/2 on, 20 new labels:
- 10 renames: an old label stops and a new one takes its whole vocabulary (a category
  renamed in the ticket system): the text is as before, the label is new, and older rows
  outvote the new name until they fall out of the policies' windows;
- 10 splits: an old label goes on beside a new sibling whose three words come from half of
  the parent's vocabulary and six words of its own (a category split in two).
Rows after n/2 draw uniformly among the 30 labels then in use. Columns: id, text, label,
phase (P0 before the new labels, P1 after; for the report's per-regime columns only).
One generator, `default_rng([seed, 39])`: the stream is a pure function of (seed, n_rows).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from engine.safe_csv import write_rows

from .demo import _vocab

N_ROWS = 2_000
N_OLD = 20
N_RENAMED = 10   # the first N_RENAMED old labels are renamed at n/2; the others are split


def make_new_labels_stream(seed: int, n_rows: int = N_ROWS) -> list[dict[str, Any]]:
    """The rows, in time order."""
    if n_rows < 8:
        raise ValueError("the new-labels stream needs at least 8 rows")
    rng = np.random.default_rng([int(seed), 39])
    filler = _vocab(rng, "f", 40)
    old = [f"topic{i:02d}" for i in range(N_OLD)]
    vocab = {lab: _vocab(rng, f"w{i:02d}", 12) for i, lab in enumerate(old)}
    renamed = {lab: f"{lab}_v2" for lab in old[:N_RENAMED]}
    split = {lab: f"{lab}_b" for lab in old[N_RENAMED:]}
    for lab, new in renamed.items():
        vocab[new] = vocab[lab]
    for i, (lab, new) in enumerate(split.items()):
        vocab[new] = vocab[lab][:6] + _vocab(rng, f"s{i:02d}", 6)
    after = [*renamed.values(), *split, *split.values()]
    half = n_rows // 2
    rows = []
    for t in range(n_rows):
        labels = old if t < half else after
        label = labels[int(rng.integers(len(labels)))]
        words = list(rng.choice(vocab[label], 3)) + list(rng.choice(filler, 2))
        rng.shuffle(words)
        rows.append({"id": t, "text": " ".join(words), "label": label, "phase": "P0" if t < half else "P1"})
    return rows


def write_new_labels(path: str | Path, seed: int, n_rows: int = N_ROWS) -> Path:
    """Write the stream as CSV."""
    path = Path(path)
    rows = make_new_labels_stream(seed, n_rows)
    with open(path, "w", newline="", encoding="utf-8") as f:
        write_rows(f, list(rows[0]), rows)
    return path
