"""`ael-lab sweep --out DIR --export csv|parquet|json`: the store on standard output.

json: the document `ael-lab run --json` writes (scenario, seeds, runs, summary,
paper_comparable, plugins) for each scenario and setting of the sweep: one document when
the sweep has one, else a JSON list of them. Runs that failed are listed under
"failed" (selector, seed, error). csv and parquet: one row per run, with its
settings and every metric as columns (parquet needs pyarrow), and `plugins` (the
distributions whose plugins ran in its worker) when any did.

Only verified runs are exported, and only a whole store: a run whose content no
longer matches its digest, or a run the store recorded and no longer holds (deleted;
see store.py's ledger), makes the export one line naming the store and the run,
exit 2, with nothing written; the same sweep run again runs it again.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import IO, Any

from ael_lab import AELError
from ael_lab.runs import SessionConfig, finite, summarise
from ael_lab.text import frame_text, shown_lines

from ael_lab.sweep_store import Store

FORMATS = ("csv", "parquet", "json")
# the runs table's columns a flat export keeps (config and result are spread into columns instead)
RUN_COLUMNS = ("hash", "scenario", "selector", "seed", "status", "error", "overall", "sharpe", "episodes",
               "reflections", "first_injection", "until", "started", "finished", "wall_s", "cpu_s", "worker",
               "llm_calls", "llm_input_tokens", "llm_output_tokens", "llm_cost_usd")

TIME_COLUMNS = ("started", "finished")  # epoch seconds in the store


def iso_time(epoch: Any) -> str:
    """'2026-11-26T15:30:00.123+00:00' for epoch seconds; '' for a run without a time."""
    if epoch is None or epoch != epoch:  # None, NaN
        return ""
    return datetime.fromtimestamp(float(epoch), tz=timezone.utc).isoformat(timespec="milliseconds")


def export(store: Store, fmt: str, out: IO[str]) -> None:
    if fmt not in FORMATS:
        raise AELError(f"--export: {fmt!r} is not one of {', '.join(FORMATS)}")
    if fmt == "json":
        docs = documents(store)
        json.dump(docs[0] if len(docs) == 1 else docs, out, indent=1)
        out.write("\n")
        return
    on_terminal = getattr(out, "isatty", lambda: False)()
    if fmt == "parquet" and on_terminal:  # its bytes are a terminal's escapes as much as anything
        raise AELError("--export parquet writes binary: send it to a file (ael-lab sweep --out DIR "
                       "--export parquet > runs.parquet)")
    frame = table(store)
    if fmt == "csv":
        for column in TIME_COLUMNS:  # ISO-8601 (UTC), not epoch seconds: a person reads the CSV
            if column in frame:
                frame[column] = [iso_time(x) for x in frame[column]]
        text = frame_text(frame)  # a run's error text or an option's value is never a formula
        # on a terminal a regime's name or an option's value is shown, not obeyed (an OSC 52 in a
        # stream's regime column is a metric's column name); to a file or a pipe, the data as it is
        out.write(shown_lines(text) if on_terminal else text)
        return
    for column in TIME_COLUMNS:  # a timestamp type, which parquet keeps
        if column in frame:
            import pandas as pd

            frame[column] = pd.to_datetime(frame[column], unit="s", utc=True)
    try:
        import pyarrow  # noqa: F401  (pandas writes parquet through it)
    except ImportError:
        raise AELError("--export parquet needs pyarrow, which is not installed (pip install pyarrow); "
                       "--export csv and json need nothing more") from None
    out.flush()
    frame.to_parquet(out.buffer, index=False)


def setting_of(config: dict[str, Any]) -> str:
    """What a run's configuration says beyond its selector and seed: the sweep's axes (one
    document per distinct value)."""
    rest = {k: v for k, v in config.items() if k not in ("selector", "seed")}
    return json.dumps(rest, sort_keys=True)


def documents(store: Store) -> list[dict[str, Any]]:
    """One `run --json` document per (scenario, setting), in grid order."""
    from ael_cli.runner import _paper_comparable

    groups: dict[str, list[dict[str, Any]]] = {}
    for row in store.runs(unverified="raise"):  # a run changed after the sweep wrote it is an error, not a result
        groups.setdefault(setting_of(row["config"]), []).append(row)
    docs = []
    for rows in groups.values():
        ok = [r for r in rows if r["status"] == "ok"]
        runs = [r["result"] for r in ok]
        configs = [SessionConfig.from_dict(r["config"]) for r in rows]
        seeds = list(dict.fromkeys(r["seed"] for r in rows))
        doc = {"scenario": rows[0]["scenario"], "seeds": seeds, "runs": runs, "summary": summarise(runs),
               "paper_comparable": all(r["until"] is None for r in rows) and _paper_comparable(configs),
               "plugins": plugins_of(runs)}
        failed = [{"selector": r["selector"], "seed": r["seed"], "error": r["error"]} for r in rows
                  if r["status"] == "failed"]
        if failed:
            doc["failed"] = failed
        docs.append(finite(doc))
    return docs


def plugins_of(results: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The plugins the runs' workers had loaded (each result names its own: engine/results.py)."""
    seen = {(p["distribution"], p["version"]): p for r in results for p in (r or {}).get("plugins") or ()}
    return [seen[k] for k in sorted(seen)]


def plugins_cell(result: dict[str, Any] | None) -> str:
    return "; ".join(f"{p['distribution']} {p['version']}" for p in (result or {}).get("plugins") or ())


def table(store: Store):
    """One row per run: the runs table's columns, the settings, and every metric."""
    import pandas as pd

    runs = store.runs(unverified="raise")  # a run changed after the sweep wrote it is an error, not a row
    metrics = pd.DataFrame(store.metrics(r["hash"] for r in runs), columns=["hash", "name", "value"])
    wide = metrics.pivot(index="hash", columns="name", values="value") if len(metrics) else pd.DataFrame()
    rows = []
    for row in runs:
        c = row["config"]
        settings = {"prior": ",".join(map(str, c["prior"])), "episodes_limit": c["episodes"],
                    **{f"reflector.{k}": v for k, v in c["reflector_options"].items()},
                    **{f"option.{k}": json.dumps(v) if isinstance(v, (list, dict)) else v
                       for k, v in c["scenario_options"].items()},
                    "agent": (c["llm"] or {}).get("agent", "offline"),
                    "reflector": (c["llm"] or {}).get("reflector", "offline")}
        rows.append({**{k: row[k] for k in RUN_COLUMNS}, **settings})
        if plugins_cell(row["result"]):  # a column only where a plugin ran: old exports unchanged
            rows[-1]["plugins"] = plugins_cell(row["result"])
    frame = pd.DataFrame(rows)
    if len(wide) and len(frame):
        metric_cols = wide.drop(columns=[c for c in wide.columns if c in frame.columns], errors="ignore")
        frame = frame.join(metric_cols.add_prefix("metric."), on="hash")
    return frame
