"""The stream world (issue 33): AEL on a labelled file, and reflection that finds the field.

The demo stream (scenarios/stream/demo.py) is written by the tests: in its last regime the
text stops telling the label and one of three metadata columns, `source`, starts to.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import scenarios
from ael_cli.main import main
from engine.errors import AELError
from engine.store.persistence import load_session, save_session
from engine.session import Session, SessionConfig
from scenarios.stream import table as tables
from scenarios.stream.demo import make_demo_stream, write_demo

SEEDS = (1, 2, 3, 4, 5)
META = ["source", "region", "channel"]


@pytest.fixture(scope="module")
def demos(tmp_path_factory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("stream")
    return {seed: write_demo(folder / f"demo{seed}.csv", seed) for seed in SEEDS}


def options(path, meta=META, **more):
    return {"data": str(path), "text": "text", "label": "label", "meta": list(meta), "regime": "phase", **more}


def run(path, seed: int, selector: str, meta=META, until: int | None = None) -> Session:
    opts = options(path, meta)
    s = Session(SessionConfig("stream", seed, selector, scenario_options=dict(opts)),
                scenarios.make_scenario("stream", seed, opts))
    s.run(until=until)
    return s


def last_regime(s: Session) -> float:
    r3 = [h["reward"] for h in s.history if h["regime"] == 3]
    return sum(r3) / len(r3)


def proposals(s: Session) -> list[str]:
    return [r.policy["name"] for r in s.reflections if r.policy]


# ------------------------------------------------------------ the Done-when
@pytest.mark.heavy
def test_reflection_finds_the_telling_column_on_every_seed_and_recovers_the_last_regime(demos):
    for seed in SEEDS:
        ts = run(demos[seed], seed, "ts")
        ael = run(demos[seed], seed, "ts+reflection")
        assert proposals(ts) == [] and ts.reflections == []
        assert proposals(ael) == ["same_source"], seed
        assert "same_source" in ael.pool
        assert last_regime(ts) < 0.3, seed  # chance among six labels: the text tells nothing there
        assert last_regime(ael) > last_regime(ts) + 0.3, (seed, last_regime(ael), last_regime(ts))
        proposal = next(r for r in ael.reflections if r.policy)
        assert "Column 'source'" in proposal.rationale
        ev = proposal.evidence
        assert ev["column"] == "source" and ev["candidate_fixes"] >= 5
        assert ev["candidate_fixes"] >= 0.25 * ev["failures"]
        assert f"fixes {ev['candidate_fixes']} of the {ev['failures']} failures" in proposal.rationale
        assert set(ev["fixes_by_column"]) == set(META)
        assert proposal.episode >= 450  # not before the last regime (it starts at row 450)


@pytest.mark.heavy
def test_without_the_telling_column_nothing_is_proposed(demos):
    for seed in SEEDS:
        ael = run(demos[seed], seed, "ts+reflection", meta=["region", "channel"])
        assert ael.reflections, seed  # the gate fired in the last regime...
        assert proposals(ael) == [], seed  # ...and no unrelated column was proposed
        assert all(set(r.evidence["fixes_by_column"]) == {"region", "channel"} for r in ael.reflections)


def test_with_no_meta_column_it_tries_the_triggers_candidates_and_says_so_once(demos):
    opts = options(demos[1], [])
    s = Session(SessionConfig("stream", 1, "ts+reflection", scenario_options=dict(opts)),
                scenarios.make_scenario("stream", 1, opts))
    looked, reflect = [], s.reflector.reflect
    s.reflector.reflect = lambda ctx: looked.append(ctx.episode) or reflect(ctx)
    s.run()
    assert proposals(s) == [] and len(looked) > 5  # the gate opened on most checks of the last regime...
    # ...and what it tried or found in the pool already, and why nothing was proposed, was said once
    assert [r.episode for r in s.reflections] == [499]
    said = s.reflections[0].evidence["nothing_proposed"]
    assert said["tried"] or said["held_by_pool"]
    assert not any(name.startswith("same_") for name in said["tried"])
    assert "so nothing is proposed" in s.reflections[0].diagnosis and said["why"] in s.reflections[0].diagnosis


def test_the_world_never_names_a_column_itself():
    source = "".join(p.read_text() for p in Path(scenarios.__file__).parent.joinpath("stream").glob("*.py")
                     if p.name != "demo.py")
    for column in ("source", "region", "channel"):
        assert f'"{column}"' not in source and f"'{column}'" not in source


# -------------------------------------------------------------- save, resume
@pytest.mark.heavy
def test_a_save_mid_run_resumes_exactly_and_records_the_files_hash(demos, tmp_path):
    s = run(demos[2], 2, "ts+reflection", until=480)
    save_session(s, tmp_path / "mid.json")
    saved = json.loads((tmp_path / "mid.json").read_text())["session"]["config"]["scenario_options"]
    assert saved["data"] == str(demos[2])
    assert saved["data_sha256"] == tables.file_sha256(str(demos[2]))
    again = load_session(tmp_path / "mid.json", scenarios.make_scenario)
    s.run()
    again.run()
    assert again.history == s.history
    assert [r.to_dict() for r in again.reflections] == [r.to_dict() for r in s.reflections]


def test_a_resume_on_a_changed_file_is_one_line(demos, tmp_path, capsys):
    path = tmp_path / "data.csv"
    path.write_bytes(demos[3].read_bytes())
    save = tmp_path / "s.json"
    assert main(["run", "stream", *flags(path), "--selector", "ts", "--seeds", "3", "--until", "100",
                 "--save", str(save), "--quiet"]) == 0
    assert main(["run", "stream", "--resume", str(save), "--quiet"]) == 0
    rows = path.read_text().splitlines()
    path.write_text("\n".join([rows[0], rows[2], rows[1], *rows[3:]]) + "\n")  # two rows swapped
    capsys.readouterr()
    assert main(["run", "stream", "--resume", str(save), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "changed since this session was saved" in err
    path.write_text(rows[0].replace("label", "category") + "\n" + "\n".join(rows[1:]) + "\n")  # a column renamed
    assert main(["run", "stream", "--resume", str(save), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "changed since this session was saved" in err


# ------------------------------------------------------------- the CLI
def flags(path, meta="source,region,channel"):
    return ["--data", str(path), "--text", "text", "--label", "label", "--meta", meta, "--regime", "phase"]


@pytest.mark.heavy
def test_ael_lab_run_prints_the_per_regime_table(demos, capsys):
    assert main(["run", "stream", *flags(demos[1]), "--selector", "ts,ts+reflection", "--seeds", "1",
                 "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "stream: 1 seed(s)" in out and "R3" in out and "ts+reflection" in out


def test_its_flags_are_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for flag in ("--text TEXT", "--label LABEL", "--meta META", "--regime REGIME", "--order ORDER"):
        assert flag in out
    assert "stream: your own labelled table" in out


def test_jsonl_and_csv_give_the_same_run_and_order_sorts_the_rows(tmp_path):
    rows = make_demo_stream(4, 120)
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    write_demo(tmp_path / "a.csv", 4, 120)
    shuffled = rows[::-1]  # file order reversed; --order time puts it back
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in shuffled))
    runs = []
    for name, extra in (("a.jsonl", {}), ("a.csv", {}), ("b.jsonl", {"order": "time"})):
        opts = options(tmp_path / name, **extra)
        s = Session(SessionConfig("stream", 4, "ts", scenario_options=dict(opts)),
                    scenarios.make_scenario("stream", 4, opts))
        s.run()
        runs.append([(h["policy"], h["reward"]) for h in s.history])
    assert runs[0] == runs[1] == runs[2]


def test_without_a_regime_column_the_table_has_only_overall(demos, capsys):
    assert main(["run", "stream", "--data", str(demos[1]), "--text", "text", "--label", "label",
                 "--selector", "ts", "--seeds", "1", "--episodes", "60"]) == 0
    out = capsys.readouterr().out
    assert "overall" in out and "R0" not in out


def test_sweep_and_compare_accept_the_stream_world(demos, tmp_path, capsys):
    from ael_tui.compare.lockstep import build_compare
    from ael_tui.widgets.opening import selectors_of

    assert "stream" in scenarios.scenario_names()
    assert "ts+reflection" in selectors_of("stream")
    config = SessionConfig("stream", 1, "ts+reflection", scenario_options=options(demos[1]))
    sessions = build_compare(config, ["ts", "oracle"])
    assert list(sessions) == ["ts", "oracle"]
    for s in sessions.values():
        s.run(until=40)
    out = tmp_path / "sweep"
    assert main(["sweep", "stream", "--out", str(out), "--selector", "ts", "--seeds", "1", "--episodes", "40",
                 "--workers", "1", "--quiet", "--option", f"data={demos[1]}", "--option", "text=text",
                 "--option", "label=label", "--option", "meta=source,region"]) == 0, capsys.readouterr().err
    assert (out / "sweep.sqlite").exists()


# ------------------------------------------------------------- bad files
def bad(path, capsys, *extra, text="text", label="label") -> str:
    capsys.readouterr()
    assert main(["run", "stream", "--data", str(path), "--text", text, "--label", label, *extra,
                 "--selector", "ts", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_bad_files_are_one_line_each(tmp_path, capsys, monkeypatch):
    good = "text,label,src\nthe printer jams,hardware,a\nmy password fails,login,b\n"
    assert "no such file" in bad(tmp_path / "none.csv", capsys)
    (tmp_path / "x.txt").write_text(good)
    assert "unknown file type '.txt'" in bad(tmp_path / "x.txt", capsys)
    (tmp_path / "latin.csv").write_bytes("text,label\ncaf\xe9 au lait,drink\ntea,drink2\n".encode("latin-1"))
    assert "not UTF-8 text (byte 0xe9 at offset 14)" in bad(tmp_path / "latin.csv", capsys)
    (tmp_path / "one.csv").write_text("text,label\na b,x\nc d,x\ne f,x\n")
    err = bad(tmp_path / "one.csv", capsys)
    assert "every row of" in err and "the label 'x'" in err
    (tmp_path / "empty.csv").write_text("text,label\na b,x\n,y\n  ,y\n")
    err = bad(tmp_path / "empty.csv", capsys)
    assert "row 2 (and 1 more)" in err and "empty text" in err
    (tmp_path / "nolabel.csv").write_text("text,label\na b,x\nc d,\n")
    err = bad(tmp_path / "nolabel.csv", capsys)
    assert "row 2 of" in err and "has no label" in err
    (tmp_path / "ok.csv").write_text(good)
    assert "--text body: no such column" in bad(tmp_path / "ok.csv", capsys, text="body")
    assert "--meta region: no such column" in bad(tmp_path / "ok.csv", capsys, "--meta", "src,region")
    assert "--label is required" in bad(tmp_path / "ok.csv", capsys, label="")
    (tmp_path / "zero.csv").write_text("")
    assert "the file is empty" in bad(tmp_path / "zero.csv", capsys)
    (tmp_path / "bad.jsonl").write_text('{"text": "a", "label": "x"}\n{"text": oops}\n')
    assert "line 2 is not JSON" in bad(tmp_path / "bad.jsonl", capsys)
    (tmp_path / "list.jsonl").write_text('["a", "x"]\n')
    assert "line 1 is not a JSON object" in bad(tmp_path / "list.jsonl", capsys)
    (tmp_path / "quote.csv").write_text('text,label\n"unclosed,x\n')
    bad(tmp_path / "quote.csv", capsys)  # whatever pandas makes of it: one line
    monkeypatch.setattr(tables, "MAX_BYTES", 40)
    assert "bytes is more than the 40 bytes" in bad(tmp_path / "ok.csv", capsys)


def test_parquet_needs_pyarrow_or_is_read(tmp_path, capsys):
    pq = tmp_path / "rows.parquet"
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        pq.write_bytes(b"PAR1 not really")
        assert "reading Parquet needs pyarrow" in bad(pq, capsys)
        return
    import pandas as pd

    pd.DataFrame(make_demo_stream(1, 60)).to_parquet(pq)
    assert main(["run", "stream", "--data", str(pq), "--text", "text", "--label", "label", "--selector", "ts",
                 "--quiet"]) == 0


def test_options_without_data_or_for_the_wrong_world_are_one_line(capsys):
    assert main(["run", "stream", "--text", "text", "--label", "label", "--quiet"]) == 2
    assert "--data FILE is required" in capsys.readouterr().err
    assert main(["run", "synthetic", "--meta", "a,b", "--quiet"]) == 2
    assert "--meta applies only to the stream scenario" in capsys.readouterr().err


def test_a_meta_column_named_like_the_label_key_is_refused(tmp_path):
    (tmp_path / "d.csv").write_text("body,cls,label\na b,x,p\nc d,y,q\n")
    with pytest.raises(AELError, match="cannot be metadata"):
        scenarios.make_scenario("stream", 1, {"data": str(tmp_path / "d.csv"), "text": "body", "label": "cls",
                                              "meta": ["label"]})


@pytest.mark.heavy
def test_the_readme_table_of_your_own_data_is_what_the_command_prints(tmp_path):
    """The README's 'Your own data' rows for ts, ts+reflection and oracle, rerun as written."""
    import re

    from scenarios.stream.demo import make_demo_stream

    text = (Path(__file__).resolve().parents[2] / "docs" / "worlds.md").read_text(encoding="utf-8")  # the README's worlds page
    section = text.split("## Your own data", 1)[1].split("\n## ", 1)[0]
    assert "ael-lab export-stream stream --seed 1 > demo.jsonl" in section
    (tmp_path / "demo.jsonl").write_text("".join(json.dumps(r) + "\n" for r in make_demo_stream(1)))
    out = tmp_path / "out.json"
    assert main(["run", "stream", "--data", str(tmp_path / "demo.jsonl"), "--text", "text", "--label", "label",
                 "--meta", "source,region,channel", "--regime", "phase", "--selector", "ts,ts+reflection,oracle",
                 "--seeds", "1,2,3,4,5", "--quiet", "--json", str(out)]) == 0
    runs = json.loads(out.read_text())["runs"]
    for selector in ("ts", "ts+reflection", "oracle"):
        row = re.search(rf"^\| {re.escape(selector)} \| (.+?) \|$", section, re.M)
        assert row, selector
        cells = [c.strip() for c in row[1].split("|")]
        mine = [r for r in runs if r["selector"] == selector]
        means = [sum(r["regimes"][g] for r in mine) / len(mine) for g in ("R0", "R1", "R2", "R3")]
        assert [f"{m:.3f}" for m in means] == cells[:4], selector
        assert cells[4].startswith(f"{sum(r['overall'] for r in mine) / len(mine):.3f}±")


def test_the_vote_reads_true_cosines_and_the_running_prior(demos):
    from collections import Counter

    import numpy as np
    from sklearn.metrics.pairwise import cosine_similarity

    w = scenarios.make_scenario("stream", 1, options(demos[1]))
    for t in (0, 37, 451, 699):
        assert np.allclose(w.row_sims(t), cosine_similarity(w.table.x[t], w.table.x).ravel())
    for t in (0, 1, 10, 300, 700):
        counts = Counter(w.labels[:t])
        naive = min(counts, key=lambda g: (-counts[g], g)) if counts else min(w.labels)
        assert w._priors[t] == naive


def test_the_stream_agent_says_how_it_voted(demos):
    """Issue 41: the k-NN agent reports its plurality vote (no threshold) to the explanation."""
    from engine.explain import explain, render

    s = run(demos[1], 1, "ts", until=200)
    report = explain(s, 190)
    (vote,) = report["decided"]["votes"]
    assert vote["threshold"] is None and report["decided"]["answer"] == report["record"]["info"]["predicted"]
    assert [v["episode"] for v in vote["voters"]] == report["record"]["info"]["voters"]
    assert "the plurality wins" in render(report)
