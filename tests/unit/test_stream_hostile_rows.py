"""The stream world on files made to hurt it: a label unique to every row (the running
prior's work must stay linear in rows) and JSONL rows nested deeper than a row may be."""

from __future__ import annotations

import json

import pytest

from ael_cli.main import main
from engine.errors import AELError
from scenarios.stream import table as tables
from scenarios.stream.scenario import _priors


class CountedLabel(str):
    """A label that counts the comparisons made between labels (the work of finding the
    first of the leaders by name)."""
    compared = 0

    def __lt__(self, other):
        CountedLabel.compared += 1
        return str.__lt__(self, other)

    def __gt__(self, other):
        CountedLabel.compared += 1
        return str.__gt__(self, other)

    __hash__ = str.__hash__


def _priors_reference(labels):
    """The prior as specified: before each row, the label seen most often so far, ties to
    the first by name (before any row, the first label by name), recounted at every row."""
    out, counts = [], {}
    for label in [*labels, None]:
        if counts:
            best = max(counts.values())
            out.append(min(k for k, c in counts.items() if c == best))
        else:
            out.append(min(labels))
        if label is not None:
            counts[label] = counts.get(label, 0) + 1
    return out


def test_the_running_prior_compares_labels_a_bounded_number_of_times_per_row():
    n = 3_000
    labels = tuple(CountedLabel(f"L{i:05d}") for i in reversed(range(n)))  # unique, each new one the first by name
    CountedLabel.compared = 0
    priors = _priors(labels)
    # linear: min(labels) once, then at most one comparison per row (the set of tied
    # leaders' minimum, taken at every row, made n * n / 2 = 4.5 million here)
    assert CountedLabel.compared <= 3 * n, CountedLabel.compared
    assert priors[0] == "L00000" and priors[-1] == "L00000" and priors[1] == f"L{n - 1:05d}"


@pytest.mark.parametrize("labels", ["abcabcab", "ccbbaa", "zyxwzzyx", "ababbaab", "a" + "b" * 5 + "c" * 6])
def test_the_running_prior_is_the_recount_at_every_row(labels):
    assert _priors(tuple(labels)) == _priors_reference(tuple(labels))


def _nested(depth: int) -> str:
    """A JSONL row whose text field sits inside `depth` containers in all (the row counts)."""
    return '{"text": "the printer jams", "label": "x", "deep": ' + "[" * (depth - 1) + "1" + "]" * (depth - 1) + "}"


def _write_jsonl(path, bad_line: str):
    rows = [{"text": "my password fails", "label": "login"}, {"text": "the screen is dark", "label": "hardware"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + bad_line + "\n")
    return path


@pytest.mark.parametrize("depth", [33, 200_000])
def test_a_jsonl_row_nested_deeper_than_32_is_one_line(tmp_path, capsys, depth):
    path = _write_jsonl(tmp_path / f"deep{depth}.jsonl", _nested(depth))
    tables._load.cache_clear()
    with pytest.raises(AELError, match=r"line 3 nests deeper than 32 levels"):
        tables.read_frame(str(path))
    assert main(["run", "stream", "--data", str(path), "--text", "text", "--label", "label", "--seeds", "1",
                 "--selector", "ts", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "nests deeper than 32 levels" in err, err[:400]


def test_a_jsonl_row_32_deep_is_read(tmp_path):
    path = _write_jsonl(tmp_path / "deep32.jsonl", _nested(32))
    frame = tables.read_frame(str(path))
    assert len(frame) == 3 and frame["text"].tolist()[2] == "the printer jams"
