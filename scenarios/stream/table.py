"""Reading a researcher's labelled file: validated like every other input, hashed, vectorised.

A file is untrusted input. It is read whole (at most `MAX_BYTES`), its format told by its
extension (.csv/.tsv, .jsonl/.ndjson/.json, .parquet), CSV and JSONL decoded as UTF-8
strictly (a BOM is allowed); every problem is one `AELError` line naming the file and what
to do: too big, not UTF-8 (the offset of the first bad byte), not parseable, a missing
column, an empty text or label, a label with one value, too many rows or regimes. Parquet
needs pyarrow, which is an optional dependency: without it the line says so.

`load` is cached by (path, size, mtime, options), so every seed and selector of one command
share the parsed table and its TF-IDF; `sha256` is the file's content hash, which a save
records (the `data_sha256` option) and a resume checks.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from engine.data_files import open_data, read_data
from engine.errors import AELError

MAX_BYTES = 256 * 2**20
MAX_ROWS = 500_000
MIN_ROWS = 2
MAX_TEXT = 20_000       # characters of a row's text that are vectorised
MAX_REGIMES = 64
MAX_META = 16
MAX_DEPTH = 32          # containers nested in one JSONL row (the row's object counts as one)
RESERVED = ("label", "distilled")  # the memory entries' own keys: the true label, a prototype's mark
_TOO_DEEP = object()    # a JSONL row the parser could not nest into
FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl",
           ".parquet": "parquet", ".pq": "parquet"}


@dataclass(frozen=True)
class Table:
    """The rows in episode order: parallel tuples, plus the TF-IDF matrix (rows L2-normalised)."""

    path: str
    sha256: str
    texts: tuple[str, ...]
    labels: tuple[str, ...]
    meta: dict[str, tuple[Any, ...]]        # column -> each row's value (str, or None when missing)
    regimes: tuple[int, ...] | None         # each row's regime index, when --regime is given
    regime_names: tuple[str, ...]
    x: Any                                  # scipy CSR matrix, one row per episode
    terms: Any = None                       # the TF-IDF vocabulary, one name per column of x

    def __len__(self) -> int:
        return len(self.texts)


def file_sha256(path: str) -> str:
    """The file's content hash, once it is a regular file within `MAX_BYTES` (AELError
    otherwise: a save naming /dev/zero or a FIFO would be hashed forever)."""
    h, left = hashlib.sha256(), MAX_BYTES + 1
    with open_data(path, f"--data {path}", MAX_BYTES) as f:
        while left > 0 and (chunk := f.read(min(1 << 20, left))):  # bounded: a file still growing ends too
            h.update(chunk)
            left -= len(chunk)
    if left <= 0:
        raise AELError(f"--data {path}: grew past the {MAX_BYTES:,} bytes a data file may have while it was read")
    return h.hexdigest()


def _format(path: str) -> str:
    ext = Path(path).suffix.lower()
    if ext not in FORMATS:
        raise AELError(f"--data {path}: unknown file type {ext or '(no extension)'!r} (expected .csv, .tsv, "
                       ".jsonl, .ndjson or .parquet)")
    return FORMATS[ext]


def _read_bytes(path: str) -> bytes:
    return read_data(path, f"--data {path}", MAX_BYTES)  # a regular file within MAX_BYTES, checked first


def _decode(path: str, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        bad = raw[err.start:err.start + 1].hex()
        raise AELError(f"--data {path}: not UTF-8 text (byte 0x{bad} at offset {err.start}); re-save it as "
                       "UTF-8") from None


def read_frame(path: str):
    """The file as a pandas DataFrame of the columns as they are; AELError (one line) otherwise."""
    return _parse(path, _read_bytes(path))


def _parse(path: str, raw: bytes):
    import pandas as pd

    fmt = _format(path)
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise AELError(f"--data {path}: reading Parquet needs pyarrow, which is not installed "
                           "(pip install pyarrow), or give the rows as CSV or JSONL") from None
        try:
            return pd.read_parquet(io.BytesIO(raw))
        except Exception as err:  # noqa: BLE001 - any unreadable Parquet is the same line
            raise AELError(f"--data {path}: not a readable Parquet file ({_reason(err)})") from None
    text = _decode(path, raw)
    if not text.strip():
        raise AELError(f"--data {path}: the file is empty")
    if fmt == "jsonl":
        records = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise AELError(f"--data {path}: line {n} is not JSON ({err.msg}); JSONL holds one object "
                               "per line") from None
            except RecursionError:  # "[[[[…" a hundred thousand deep: the parser's own stack gave out
                row = _TOO_DEEP
            if row is _TOO_DEEP or _depth(row) > MAX_DEPTH:
                raise AELError(f"--data {path}: line {n} nests deeper than {MAX_DEPTH} levels; a row is an "
                               "object of plain values") from None
            if not isinstance(row, dict):
                raise AELError(f"--data {path}: line {n} is not a JSON object")
            records.append(row)
            if len(records) > MAX_ROWS:
                raise AELError(f"--data {path}: more than {MAX_ROWS:,} rows")
        return pd.DataFrame.from_records(records)
    try:
        return pd.read_csv(io.StringIO(text), sep="\t" if fmt == "tsv" else ",", dtype=str,
                           keep_default_na=False, na_values=[""])
    except Exception as err:  # noqa: BLE001 - pandas' parser errors have many types
        raise AELError(f"--data {path}: not a readable {fmt.upper()} file ({_reason(err)})") from None


def _depth(value: Any) -> int:
    """How many containers deep `value` nests (a scalar 0, `{}` 1), walked without recursion:
    a row that parsed at a depth the parser allowed must not exhaust the stack later
    (pandas, `_cell`'s json.dumps). Only containers are stacked: a flat row costs a look
    at each value."""
    if not isinstance(value, (dict, list)):
        return 0
    deepest, stack = 1, [(value, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            break  # deep enough to refuse: no need to walk the rest
        for child in (node.values() if isinstance(node, dict) else node):
            if isinstance(child, (dict, list)):
                stack.append((child, level + 1))
    return deepest


def _reason(err: Exception) -> str:
    return " ".join(str(err).split())[:160] or type(err).__name__


def _cell(value: Any) -> str | None:
    """A cell as text; None when missing (NaN, None, empty)."""
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return None
    if isinstance(value, (dict, list)):
        text = json.dumps(value, sort_keys=True)
    elif isinstance(value, float) and value.is_integer():
        text = str(int(value))
    else:
        text = str(value)
    return text if text.strip() else None


def _rows_named(missing: list[int]) -> str:
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    return f"row {missing[0] + 1}{more}"


def _check_columns(path: str, frame, text: str, label: str, meta: list[str], regime: str, order: str) -> None:
    have = [str(c) for c in frame.columns]
    shown = ", ".join(have[:20]) + (", ..." if len(have) > 20 else "")
    if not text:
        raise AELError(f"stream: --text is required (the column holding each row's text; {path} has: {shown})")
    if not label:
        raise AELError(f"stream: --label is required (the column holding each row's label; {path} has: {shown})")
    for flag, col in [("--text", text), ("--label", label), *(("--meta", m) for m in meta),
                      ("--regime", regime), ("--order", order)]:
        if col and col not in have:
            raise AELError(f"{flag} {col}: no such column in {path} (columns: {shown})")
    if text == label:
        raise AELError(f"--text and --label name the same column {text!r}")
    if len(meta) > MAX_META:
        raise AELError(f"--meta: {len(meta)} columns; at most {MAX_META}")
    if len(set(meta)) != len(meta):
        raise AELError("--meta: a column is listed twice")
    for m in meta:
        if m in (text, label) or m == RESERVED[0]:
            raise AELError(f"--meta {m}: the text, the label (or a column named 'label') cannot be metadata: "
                           "the label is what is predicted")
        if m in RESERVED:
            raise AELError(f"--meta {m}: memory marks its label prototypes with this key; rename the column")
        if regime and m == regime:
            raise AELError(f"--meta {m}: the regime column is for the report only; the agent never sees it")


def load(path: str, text: str, label: str, meta: tuple[str, ...] = (), regime: str = "", order: str = "") -> Table:
    """The validated table of `path` (cached while the file's size and mtime stay the same)."""
    p = Path(path).expanduser()
    try:
        st = p.stat()
    except OSError:
        raise AELError(f"--data {path}: no such file") from None
    return _load(str(p.resolve()), path, st.st_size, st.st_mtime_ns, text, label, tuple(meta), regime, order)


@lru_cache(maxsize=4)
def _load(resolved: str, shown: str, size: int, mtime: int, text: str, label: str, meta: tuple[str, ...],
          regime: str, order: str) -> Table:
    raw = _read_bytes(shown)
    digest = hashlib.sha256(raw).hexdigest()  # of the very bytes parsed
    frame = _parse(shown, raw)
    if len(frame) > MAX_ROWS:
        raise AELError(f"--data {shown}: {len(frame):,} rows; at most {MAX_ROWS:,}")
    frame.columns = [str(c) for c in frame.columns]
    _check_columns(shown, frame, text, label, list(meta), regime, order)
    if len(frame) < MIN_ROWS:
        raise AELError(f"--data {shown}: {len(frame)} row{'s' if len(frame) != 1 else ''}; a stream needs at least "
                       f"{MIN_ROWS}")
    if order:
        keys = [_cell(v) for v in frame[order].tolist()]
        missing = [i for i, k in enumerate(keys) if k is None]
        if missing:
            raise AELError(f"--order {order}: {_rows_named(missing)} of {shown} has no value to sort by")
        numeric = _numbers(keys)
        idx = sorted(range(len(keys)), key=(lambda i: numeric[i]) if numeric is not None else keys.__getitem__)
        frame = frame.iloc[idx].reset_index(drop=True)
    texts = [_cell(v) for v in frame[text].tolist()]
    missing = [i for i, v in enumerate(texts) if v is None]
    if missing:
        raise AELError(f"--text {text}: {_rows_named(missing)} of {shown} has an empty text; drop or fill "
                       "those rows")
    labels = [_cell(v) for v in frame[label].tolist()]
    missing = [i for i, v in enumerate(labels) if v is None]
    if missing:
        raise AELError(f"--label {label}: {_rows_named(missing)} of {shown} has no label; drop or fill those rows")
    labels = [v.strip() for v in labels]
    if len(set(labels)) < 2:
        raise AELError(f"--label {label}: every row of {shown} has the label {labels[0]!r}; there is nothing "
                       "to predict (a stream needs at least two labels)")
    metas = {m: tuple(_cell(v) for v in frame[m].tolist()) for m in meta}
    regimes, names = None, ()
    if regime:
        values = [_cell(v) or "(none)" for v in frame[regime].tolist()]
        names = tuple(dict.fromkeys(values))  # in order of first appearance
        if len(names) > MAX_REGIMES:
            raise AELError(f"--regime {regime}: {len(names)} distinct values in {shown}; a regime column has at "
                           f"most {MAX_REGIMES}")
        index = {n: i for i, n in enumerate(names)}
        regimes = tuple(index[v] for v in values)
    return Table(shown, digest, tuple(t[:MAX_TEXT] for t in texts), tuple(labels), metas, regimes, names,
                 *_tfidf(shown, texts))


def _numbers(keys: list[str]) -> list[float] | None:
    try:
        out = [float(k) for k in keys]
    except ValueError:
        return None
    return out if all(np.isfinite(out)) else None


def _tfidf(path: str, texts: list[str]):
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(sublinear_tf=True, dtype=np.float64)
    try:
        x = vectorizer.fit_transform([t[:MAX_TEXT] for t in texts])
    except ValueError:  # no row holds a word
        raise AELError(f"--data {path}: the text column holds no words to compare") from None
    return x.tocsr(), vectorizer.get_feature_names_out()


def stat_key(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(Path(path).expanduser())
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


PREVIEW_ROWS = 5


def _kind(values: list[str | None]) -> str:
    present = [v for v in values if v is not None]
    if not present:
        return "empty"
    if _numbers(present) is not None:
        return "number"
    return "text" if max(len(v) for v in present) > 40 else "category"


def preview(path: str, rows: int = PREVIEW_ROWS) -> str:
    """What a person needs to pick the columns: the file's rows and columns, each column's
    type (number, category or text), its distinct values and its first rows' values.
    AELError (one line) for a file the stream world cannot read."""
    frame = read_frame(path)
    frame.columns = [str(c) for c in frame.columns]
    if not len(frame.columns):
        raise AELError(f"--data {path}: no columns")
    lines = [f"{len(frame):,} rows · {len(frame.columns)} columns · first {min(rows, len(frame))} rows:"]
    width = min(24, max(len(c) for c in frame.columns))
    for col in frame.columns[:40]:
        values = [_cell(v) for v in frame[col].tolist()]
        distinct = len({v for v in values if v is not None})
        first = " | ".join((v or "∅")[:24] for v in values[:rows])
        lines.append(f"{col[:width]:<{width}}  {_kind(values):<8} {distinct:>7,} distinct  {first}")
    if len(frame.columns) > 40:
        lines.append(f"… and {len(frame.columns) - 40} more columns")
    return "\n".join(lines)
