"""Regenerate the bad-documents corpus (the tests read only the files it writes).

    .venv/bin/python tests/bad_documents/make_corpus.py

Each case is one file (or, for market data, one folder) broken in one way,
derived from a good document that `tests/unit/test_bad_documents.py` also checks
loads. `expected.json` maps each case to the words its one-line error must
contain: the field (or line and column) it names.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
expected: dict[str, str] = {}


def write(rel: str, text: str, expect: str) -> None:
    path = HERE / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    expected[rel] = expect


# ---------------------------------------------------------------- sessions
def sessions() -> None:
    base_path = HERE / "good" / "session.json"
    base_path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "ael_cli.main", "run", "synthetic", "--seeds", "42", "--until", "20",
                    "--save", str(base_path), "--quiet", "--force"], check=True, cwd=ROOT)
    base = json.loads(base_path.read_text())
    base["saved_at"] = "2026-01-01T00:00:00+00:00"  # fixed wall-clock stamps, so regenerating
    for decision in base["session"]["queue"]["audit"]:  # changes only what changed
        decision["at"] = base["saved_at"]
    base_path.write_text(json.dumps(base, separators=(",", ":")))

    def case(name: str, expect: str, change) -> None:
        doc = copy.deepcopy(base)
        change(doc["session"])
        write(f"sessions/{name}.json", json.dumps(doc), expect)

    s = lambda d, key, value: d.__setitem__(key, value)  # noqa: E731
    case("alpha-is-the-string-NaN", "session.selector.arms[0].alpha",
         lambda d: s(d["selector"]["arms"][0], "alpha", "NaN"))
    case("history-item-is-null", "session.history[0]", lambda d: s(d["history"], 0, None))
    case("t-is-negative", "session.t", lambda d: s(d, "t", -3))
    case("t-is-a-million", "t is 1000000", lambda d: s(d, "t", 10**6))
    case("episodes-is-negative", "session.config.episodes", lambda d: s(d["config"], "episodes", -5))
    case("prior-is-zero-and-negative", "session.config.prior[0]", lambda d: s(d["config"], "prior", [0, -1]))
    case("seed-is-a-string", "session.config.seed", lambda d: s(d["config"], "seed", "42"))
    case("reward-above-one", "session.history[3].reward", lambda d: s(d["history"][3], "reward", 1.5))
    case("phases-out-of-order", "phases run warmup, train, val, test in order",
         lambda d: s(d["history"][2], "phase", "test"))
    case("arms-do-not-match-pool", "do not match the policy pool", lambda d: d["pool"].pop())
    case("proposal-without-its-reflection", "comes from reflection 5",
         lambda d: s(d["queue"]["proposals"][0], "reflection", 5))
    case("memory-quality-above-one", "session.memory.tiers.episodic[0].quality",
         lambda d: s(d["memory"]["tiers"]["episodic"][0], "quality", 2.0))
    case("rng-is-not-pcg64", "session.rng.bit_generator", lambda d: s(d["rng"], "bit_generator", "MT19937"))
    case("policy-with-unknown-field", "session.pool", lambda d: s(d["pool"][0], "run", "rm -rf /"))
    case("code-policy-code-is-a-number", "session.pool", lambda d: s(d["pool"][0], "code", 5))
    case("approval-mode-unknown", "session.config.approval", lambda d: s(d["config"], "approval", "yolo"))
    case("split-sums-above-one", "session.config", lambda d: s(d["config"], "split", [0.9, 0.5]))
    case("insight-without-text", "session.insight.insight", lambda d: s(d, "insight", {"confidence": 0.5}))
    case("pending-insight-text-is-a-number", "payload.insight",
         lambda d: d["queue"]["proposals"][0].update(kind="insight", status="pending", payload={"insight": 5}))
    case("memory-metadata-without-reward", "session.memory.tiers.episodic[0].metadata.reward",
         lambda d: d["memory"]["tiers"]["episodic"][0]["metadata"].pop("reward"))
    case("memory-next-id-missing-a-tier", "next_id needs a count for each tier",
         lambda d: d["memory"]["next_id"].pop("semantic"))
    case("data-option-is-a-number", "session.config.scenario_options.data",
         lambda d: s(d["config"], "scenario_options", {"data": 5}))

    def beyond_stream(d):  # consistent t and history, but past the synthetic stream's 208 episodes
        last = d["history"][-1]
        d["history"] += [{**last, "episode": i} for i in range(len(d["history"]), 300)]
        d["t"] = 300
    case("t-beyond-the-stream", "session.t: 300 is beyond the end", beyond_stream)

    # a timeline (the run ahead of a rewound session, a branch's original) that is not this run's
    def with_timeline(name: str, expect: str, timeline) -> None:
        doc = copy.deepcopy(base)
        doc["timeline"] = timeline(copy.deepcopy(base["session"]))
        write(f"sessions/{name}.json", json.dumps(doc), expect)

    with_timeline("timeline-tape-not-ahead", "timeline.tape.t",
                  lambda d: {"tape": {"t": d["t"], "history": d["history"], "audit": [], "rules": []}})
    with_timeline("timeline-tape-another-run", "timeline.tape.history[2]",
                  lambda d: {"tape": {"t": d["t"] + 1, "audit": [], "rules": [],
                                      "history": [*d["history"][:2], {**d["history"][2], "reward": 0.123},
                                                  *d["history"][3:], {**d["history"][-1], "episode": d["t"]}]}})
    with_timeline("timeline-original-another-seed", "timeline.original.config.seed",
                  lambda d: {"original": {**d, "config": {**d["config"], "seed": 7}}})
    # a field outside the six the original was once checked on (scenario, seed, selector, options,
    # variants, llm): going back never changes a config, so any field that differs is another run's
    with_timeline("timeline-original-another-prior", "timeline.original.config.prior",
                  lambda d: {"original": {**d, "config": {**d["config"], "prior": [2.0, 5.0],
                                                                "variants": []}}})
    with_timeline("timeline-unknown-field", "timeline.junk", lambda d: {"tape": None, "junk": 1})

    nested: object = 1
    for _ in range(200):
        nested = [nested]
    case("nesting-200-deep", "nests deeper than", lambda d: s(d, "insight", {"x": nested}))
    doc = copy.deepcopy(base)
    text = json.dumps(doc)
    write("sessions/nesting-100000-deep.json",
          text[:-1] + ', "extra": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested deeper than")
    write("sessions/nan-literal.json", text.replace('"alpha":', '"alpha": NaN, "was":', 1),
          "expected a finite number")
    write("sessions/empty.json", "", "is empty")
    write("sessions/not-json.json", "hello\n", "not JSON")
    write("sessions/truncated.json", text[: len(text) // 2], "truncated or corrupt")
    write("sessions/foreign-json.json", json.dumps({"name": "something else"}), "not an AEL Lab session")
    write("sessions/newer-version.json", json.dumps({**doc, "schema_version": 999}), "newer AEL Lab")
    write("sessions/top-level-list.json", "[1, 2]", "not an AEL Lab session")


# ---------------------------------------------------------------- cassettes
def cassettes() -> None:
    reply = {"text": "{}", "input_tokens": 1, "output_tokens": 1, "model": "m", "truncated": False}
    entry = {"purpose": "act", "request": {"provider": "anthropic"}, "outcomes": [{"reply": reply}]}
    good = {"kind": "ael-llm-cassette", "version": 1, "entries": {"0123456789abcdef": entry}}
    write("good/cassette.json", json.dumps(good), "")
    expected.pop("good/cassette.json")

    def case(name: str, expect: str, change) -> None:
        doc = copy.deepcopy(good)
        change(doc)
        write(f"cassettes/{name}.json", json.dumps(doc), expect)

    e = lambda d: d["entries"]["0123456789abcdef"]  # noqa: E731
    case("reply-text-is-a-number", "outcomes[0].reply.text", lambda d: e(d)["outcomes"][0]["reply"].update(text=5))
    case("negative-tokens", "reply.input_tokens",
         lambda d: e(d)["outcomes"][0]["reply"].update(input_tokens=-1))
    case("outcome-is-empty", "exactly one of reply or error", lambda d: e(d)["outcomes"].__setitem__(0, {}))
    case("outcomes-missing", "outcomes", lambda d: e(d).pop("outcomes"))
    case("error-retryable-is-a-string", "error.retryable",
         lambda d: e(d)["outcomes"].__setitem__(0, {"error": {"message": "x", "retryable": "yes"}}))
    case("entries-is-a-list", "not an LLM cassette", lambda d: d.__setitem__("entries", []))
    write("cassettes/not-json.json", "{kind", "truncated or corrupt")
    write("cassettes/nesting-100000-deep.json", "[" * 100_000 + "]" * 100_000, "nested deeper than")


# ---------------------------------------------------------------- keys files
def keys() -> None:
    write("keys/a-list.json", json.dumps(["lab.step", "n"]), "expected an object")
    write("keys/key-is-a-number.json", json.dumps({"lab.step": 5}), "'lab.step' needs a key")
    write("keys/not-json.json", "{lab.step: n", "not valid JSON")
    write("keys/nesting-too-deep.json", json.dumps({"lab.step": [[[[["n"]]]]]}), "nests deeper than")
    write("keys/unknown-binding.json", json.dumps({"lab.stpe": "n"}), "no binding with id 'lab.stpe'")


# ---------------------------------------------------------------- market data folders
def data() -> None:
    rows = []
    days = ["2025-01-06", "2025-01-07", "2025-01-08", "2025-01-09", "2025-01-10"]
    for d in days:
        for hhmm in ("09:30", "11:30", "13:30", "15:30"):
            rows.append(f"{d} {hhmm}:00-05:00")
    good_root = HERE / "good" / "data"

    def folder(root: Path, csv_edit=None, extra: dict[str, str] | None = None) -> None:
        shutil.rmtree(root, ignore_errors=True)
        (root / "prices_1h").mkdir(parents=True)
        for k, ticker in enumerate(("AAA", "BBB")):
            lines = ["Datetime,Close,High,Low,Open,Volume"]
            for i, stamp in enumerate(rows):
                p = 100.0 + 10 * k + (i % 5)
                lines.append(f"{stamp},{p},{p + 1},{p - 1},{p},{1000 + i}")
            if csv_edit and ticker == "BBB":
                lines = csv_edit(lines)
            (root / "prices_1h" / f"{ticker}.csv").write_text("\n".join(lines) + "\n")
        for rel, text in (extra or {}).items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)

    folder(good_root)

    def case(name: str, expect: str, csv_edit=None, extra=None) -> None:
        folder(HERE / "data" / name, csv_edit, extra)
        expected[f"data/{name}"] = expect

    def cell(line_no: int, column: int, value: str):
        def edit(lines):
            parts = lines[line_no - 1].split(",")
            parts[column] = value
            lines[line_no - 1] = ",".join(parts)
            return lines
        return edit

    case("bad-datetime", "line 4, column Datetime", cell(4, 0, "not-a-date"))
    case("close-is-not-a-number", "line 5, column Close", cell(5, 1, "abc"))
    case("close-is-zero", "line 6, column Close", cell(6, 1, "0"))
    case("close-is-infinite", "line 6, column Close", cell(6, 1, "inf"))
    case("volume-is-negative", "line 3, column Volume", cell(3, 5, "-10"))
    case("tickers-json-is-a-list", "tickers.json", extra={"metadata/tickers.json": "[1, 2, 3]"})
    case("snapshot-date-yesterday", "snapshot_date",
         extra={"fundamentals/AAA.json": json.dumps({"snapshot_date": "yesterday", "info": {"sector": "X"}})})
    case("info-is-a-string", "info", extra={"fundamentals/AAA.json": json.dumps({"info": "Technology"})})
    case("options-chains-is-a-list", "chains", extra={"options/AAA.json": json.dumps({"chains": [1, 2]})})
    case("snapshots-json-date-bad", "fundamentals", extra={"snapshots.json": json.dumps({"fundamentals": "soon"})})
    case("fundamentals-not-json", "truncated or corrupt", extra={"fundamentals/AAA.json": "{info"})
    case("missing-close-column", "lacks column(s) Close",
         lambda lines: [",".join(p for i, p in enumerate(line.split(",")) if i != 1) for line in lines])


if __name__ == "__main__":
    for sub in ("sessions", "cassettes", "keys", "data", "good"):
        shutil.rmtree(HERE / sub, ignore_errors=True)
    sessions()
    cassettes()
    keys()
    data()
    (HERE / "expected.json").write_text(json.dumps(dict(sorted(expected.items())), indent=1) + "\n")
    print(f"{len(expected)} cases")
