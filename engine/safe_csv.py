"""Every CSV the project writes goes through here, so no cell is a spreadsheet formula.

A cell that begins with =, +, -, @, a tab or a carriage return is evaluated by Excel,
LibreOffice and Google Sheets when the file is opened: `=cmd|' /C calc'!A0` in a stream
file's text, copied into the lab's export, runs a program on the teacher's machine (CSV
injection). OWASP's remedy is applied to every text cell and header: such a cell gets a
leading apostrophe, which a spreadsheet shows as text and does not display. Numbers stay
numbers: an int or float, and a text that is only a decimal number (`-0.5`, `+3e-2`), is
written as it is (a spreadsheet reading it as a number runs nothing).

`tests/lab/test_safe_csv.py` fails if a csv writer or pandas' `to_csv` is used anywhere else
in the package.
"""

from __future__ import annotations

import csv
import io
import re
from typing import IO, Any, Iterable, Mapping, Sequence

# what makes a spreadsheet evaluate a cell; the full-width forms are read as the same
# characters by some locales' spreadsheets
_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def neutralised(value: Any) -> Any:
    """`value` as a CSV cell no spreadsheet evaluates: non-text values unchanged, a text
    beginning (after spaces) with a formula's first character prefixed with an apostrophe,
    unless it is only a number."""
    if not isinstance(value, str):
        return value
    head = value.lstrip(" ")
    if head.startswith(_TRIGGERS) and not _NUMBER.fullmatch(head):
        return "'" + value
    return value


def write_rows(out: IO[str], fieldnames: Sequence[str], rows: Iterable[Mapping[str, Any]],
               restval: Any = "", lineterminator: str = "\n") -> None:
    """A header and one line per row (a dict; keys not in `fieldnames` ignored, missing ones
    `restval`), every cell and header neutralised."""
    names = list(fieldnames)
    writer = csv.writer(out, lineterminator=lineterminator)
    writer.writerow([neutralised(n) for n in names])
    for row in rows:
        writer.writerow([neutralised(row.get(n, restval)) for n in names])


def rows_text(fieldnames: Sequence[str], rows: Iterable[Mapping[str, Any]], restval: Any = "") -> str:
    """`write_rows` into a string."""
    buf = io.StringIO()
    write_rows(buf, fieldnames, rows, restval)
    return buf.getvalue()


def frame_text(frame, index: bool = False) -> str:
    """A pandas DataFrame as CSV text, its text cells, headers and (written) index
    neutralised; numeric columns untouched, so their text is what `to_csv` gives."""
    from pandas.api.types import is_string_dtype

    def texts(values) -> bool:  # object (mixed) or string columns; pandas 3 gives text its own dtype
        return values.dtype == object or is_string_dtype(values)

    frame = frame.copy()
    for i in range(frame.shape[1]):  # by position: two columns may share a name
        if texts(frame.iloc[:, i]):
            frame.iloc[:, i] = frame.iloc[:, i].map(neutralised)
    frame.columns = [neutralised(str(c)) for c in frame.columns]
    if index:
        if texts(frame.index):
            frame.index = frame.index.map(neutralised)
        if frame.index.name is not None:
            frame.index.name = neutralised(str(frame.index.name))
    return frame.to_csv(index=index)
