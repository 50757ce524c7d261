"""The semantic tier of the stream world: one prototype per label, distilled as rows arrive.

A label's prototype is the sum of the TF-IDF rows (L2-normalised) of every stored row with
that label, and its count; its cosine to a query is the nearest-centroid classifier's score
(the direction of a sum is the direction of the mean). Each prototype is one entry of the
memory's semantic tier (`StreamScenario._distil` writes it): its content is the label, its
count and its heaviest terms, its episode the label's first row (so the similarity contract,
which names entries by episode, names a label), its metadata `{distilled: "prototype",
label, rows}`.

The sums are dense (labels × terms), which is what makes a query a gather of its own terms'
columns; a stream whose labels × terms would pass `MAX_CELLS` keeps prototypes for its first
labels only and says so (`summary`). Like the row index, the state is a pure function of
how many rows were added, in order: `sync(n)` adds rows or rebuilds from row 0 (the same
additions in the same order, so the same floats), and nothing is saved beyond the memory's
own entries.
"""

from __future__ import annotations

import numpy as np

MAX_CELLS = 32_000_000  # floats of the dense sums (256 MB): labels × terms beyond it get no prototype
TOP_TERMS = 6           # heaviest terms shown in a prototype's entry


def _sum(v: np.ndarray) -> float:
    """numpy's own (pairwise) sum, not a BLAS dot: the same floats whatever the BLAS and its threads."""
    return float(np.add.reduce(v))


class Prototypes:
    """Per-label TF-IDF sums and counts over rows 0..n-1 of a table."""

    def __init__(self, x, labels: tuple[str, ...]):
        self.x = x
        self.labels_of_rows = labels
        self.n = 0
        self.labels: list[str] = []               # in order of first appearance
        self.slot: dict[str, int] = {}
        self.first: list[int] = []                # each label's first row
        self.counts = np.zeros(0, dtype=np.int64)
        self._sums = np.zeros((0, x.shape[1]))
        self._squares = np.zeros(0)               # each sum's squared norm, kept as rows are added
        self.dropped = 0                          # rows whose label found no room (MAX_CELLS)
        self.slot_of_row = np.full(x.shape[0], -1, dtype=np.int64)  # a label's first row -> its slot
        self._taken: _TakenOut | None = None      # the later rows' share, for the last row asked about

    @property
    def max_labels(self) -> int:
        return max(1, MAX_CELLS // max(1, self.x.shape[1]))

    def _slot_for(self, label: str, r: int) -> int:
        s = self.slot.get(label)
        if s is not None:
            return s
        if len(self.labels) >= self.max_labels:
            return -1
        s = self.slot[label] = len(self.labels)
        self.labels.append(label)
        self.first.append(r)
        self.slot_of_row[r] = s
        if s >= len(self.counts):
            size = max(8, 2 * len(self.counts))
            sums = np.zeros((size, self.x.shape[1]))
            sums[: len(self.counts)] = self._sums
            counts = np.zeros(size, dtype=np.int64)
            counts[: len(self.counts)] = self.counts
            squares = np.zeros(size)
            squares[: len(self.counts)] = self._squares
            self._sums, self.counts, self._squares = sums, counts, squares
        return s

    def _add(self, r: int) -> int:
        s = self._slot_for(self.labels_of_rows[r], r)
        if s < 0:
            self.dropped += 1
            return s
        x = self.x
        lo, hi = x.indptr[r], x.indptr[r + 1]
        terms, weights = x.indices[lo:hi], x.data[lo:hi]
        had = self._sums[s, terms]
        # ||S + x||² = ||S||² + 2 S·x + ||x||², over the row's own terms. It was S·S over the whole
        # vocabulary once per row: a BLAS dot that OpenBLAS splits in two threads past 10,000
        # terms, which on a loaded two-core machine waited milliseconds for the second thread
        # (docs/worlds.md, "Beside the peers"), and whose last bit depended on the thread count
        self._squares[s] += 2.0 * _sum(had * weights) + _sum(weights * weights)
        self._sums[s, terms] = had + weights  # a row's terms are distinct: a plain add
        self.counts[s] += 1
        return s

    def sync(self, n: int) -> list[int]:
        """Hold exactly rows 0..n-1; the slots changed (every slot after a rebuild)."""
        if n < self.n:
            self.__init__(self.x, self.labels_of_rows)
        changed = []
        while self.n < n:
            s = self._add(self.n)
            if s >= 0:
                changed.append(s)
            self.n += 1
        return changed

    def _norms(self, slots: np.ndarray) -> np.ndarray:
        return np.sqrt(self._squares[slots])

    def cosines(self, slots: np.ndarray, terms: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Cosine of the query (`terms`, `weights`: its L2-normalised TF-IDF row) to the prototypes at `slots`."""
        norms = self._norms(slots)
        dots = self._sums[np.ix_(slots, terms)] @ weights if len(terms) else np.zeros(len(slots))
        out = np.zeros(len(slots))
        np.divide(dots, norms, out=out, where=norms > 0)
        return out

    def cosines_as_of(self, t: int, slots: np.ndarray, terms: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """`cosines` of the prototypes as they stood before row t (t ≤ n): the rows t..n-1 that
        joined them since are taken back out of the dot products and of the squared norms
        (||S − D||² = ||S||² − 2 S·D + ||D||², all sparse), not by copying the dense sums."""
        if t >= self.n:
            return self.cosines(slots, terms, weights)
        norms = self._norms(slots)
        dots = self._sums[np.ix_(slots, terms)] @ weights if len(terms) else np.zeros(len(slots))
        taken = self._taken_out(t, terms, weights)
        for i, s in enumerate(slots.tolist()):
            if s in taken.rows:
                dots[i] -= taken.dot(s)
                norms[i] = taken.norm(s, norms[i])
        out = np.zeros(len(slots))
        np.divide(dots, norms, out=out, where=norms > 1e-12)
        return out

    def _taken_out(self, t: int, terms: np.ndarray, weights: np.ndarray) -> _TakenOut:
        """What the rows t..n-1 add to each prototype, for the query row's terms: kept while
        the same row is asked about (a reflection's replay asks once per candidate policy and
        once more for the vote), and computed the same way either way, so a kept answer is the
        same floats as a fresh one."""
        key = (self.n, t, terms.tobytes(), weights.tobytes())
        if self._taken is None or self._taken.key != key:
            later: dict[int, list[int]] = {}
            for r in range(t, self.n):
                s = self.slot.get(self.labels_of_rows[r], -1)
                if s >= 0:
                    later.setdefault(s, []).append(r)
            q = np.zeros(self.x.shape[1])
            q[terms] = weights
            self._taken = _TakenOut(key, self, later, q)
        return self._taken

    def top_terms(self, s: int, names, n: int = TOP_TERMS) -> list[str]:
        row = self._sums[s]
        if names is None or not row.any():
            return []
        top = np.argpartition(-row, min(n, len(row) - 1))[:n]
        top = top[np.lexsort((top, -row[top]))]  # heaviest first, ties by term
        return [str(names[j]) for j in top if row[j] > 0]

    def nbytes(self) -> int:
        return self._sums.nbytes + self.counts.nbytes + self._squares.nbytes + self.slot_of_row.nbytes


class _TakenOut:
    """The rows added after a query row, per prototype, and what each takes out of the
    prototype's dot product with that row and of its norm (||S − D||² = ||S||² − 2 S·D + ||D||²,
    all sparse), each worked out once when first asked."""

    def __init__(self, key: tuple, protos: Prototypes, rows: dict[int, list[int]], q: np.ndarray):
        self.key, self.protos, self.rows, self.q = key, protos, rows, q
        self._parts: dict[int, object] = {}
        self._dots: dict[int, float] = {}
        self._norms: dict[int, float] = {}

    def _part(self, s: int):
        if s not in self._parts:
            self._parts[s] = self.protos.x[self.rows[s]]
        return self._parts[s]

    def dot(self, s: int) -> float:
        if s not in self._dots:
            self._dots[s] = float((self._part(s) @ self.q).sum())
        return self._dots[s]

    def norm(self, s: int, norm_now: float) -> float:
        if s not in self._norms:  # norm_now is the slot's own fresh norm, the same while the key holds
            part = self._part(s)
            squared = norm_now ** 2 - 2 * float((part @ self.protos._sums[s]).sum()) + float((part @ part.T).sum())
            self._norms[s] = float(np.sqrt(max(squared, 0.0)))
        return self._norms[s]
