"""Exports for slides and notebooks: a run's history as CSV and JSON (no widgets here).

`export_history(sessions, base)` writes `base.csv` and `base.json`. The CSV has
one row per episode and selector: `selector, episode, phase, regime, policy,
reward, score, correct, action, result, hits, insight`, then any per-episode
numbers the scenario reports (`info.*`, e.g. the portfolio's returns). `regime`
is the scenario's name for it (R0…) where it has one. The JSON holds the same
history plus reflections, injections and every decision, per selector. Both
files are written atomically (temp file, fsync, rename). No CSV cell is a formula a spreadsheet would run.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from ael_lab import AELError
from ael_lab.registries import loaded_plugins as plugins_loaded
from ael_lab.runs import Session
from ael_lab.store import write_json_atomic, write_text_atomic
from ael_lab.text import rows_text

from ael_tui.widgets.readouts import regime_name

COLUMNS = ("selector", "episode", "phase", "regime", "policy", "reward", "score", "correct", "action", "result",
           "hits", "insight")


def history_rows(name: str, session: Session) -> list[dict[str, Any]]:
    rows = []
    for r in session.history:
        row = {"selector": name, **{k: r.get(k) for k in COLUMNS[1:]}}
        row["regime"] = regime_name(session, r.get("regime"))
        for k, v in (r.get("info") or {}).items():
            if isinstance(v, (int, float, str, bool)) or v is None:
                row[f"info.{k}"] = v
        rows.append(row)
    return rows


def csv_text(rows: list[dict[str, Any]]) -> str:
    """The rows as CSV, no cell a formula (a stream's text can begin with `=`: engine/safe_csv.py)."""
    extra = sorted({k for r in rows for k in r} - set(COLUMNS))
    return rows_text([*COLUMNS, *extra], rows)


def session_document(session: Session) -> dict[str, Any]:
    return {
        "history": session.history,
        "reflections": [r.to_dict() for r in session.reflections],
        "injections": session.injections,
        "decisions": [asdict(a) for a in session.queue.audit],
        "insight": session.insight,
    }


def export_history(sessions: dict[str, Session], base: Path) -> tuple[Path, Path]:
    """Write `base.csv` and `base.json` (a `.csv`/`.json` suffix on `base` is dropped);
    AELError if the folder does not exist or a file cannot be written."""
    base = Path(base)
    if base.suffix in (".csv", ".json"):
        base = base.with_suffix("")
    csv_path, json_path = base.with_name(base.name + ".csv"), base.with_name(base.name + ".json")
    lead = next(iter(sessions.values()))
    c = lead.config
    rows = [row for name, s in sessions.items() for row in history_rows(name, s)]
    doc = {
        "format": "ael-lab-history", "scenario": c.scenario, "seed": c.seed,
        "episodes": max(s.t for s in sessions.values()), "n_episodes": lead.n_episodes,
        "regime_names": list(lead.scenario.regime_names),
        "selectors": {name: {"config": s.config.to_dict(), **session_document(s)} for name, s in sessions.items()},
        "plugins": plugins_loaded(),  # what else ran in the engine (engine/plugins.py)
    }
    try:
        write_text_atomic(csv_path, csv_text(rows))
        write_json_atomic(json_path, doc, indent=1)
    except OSError as err:
        raise AELError(f"cannot export to {base}: {err.strerror or err}") from err
    except ValueError as err:  # NaN in a record: JSON has no such number
        raise AELError(f"cannot export to {json_path}: {err}") from err
    return csv_path, json_path
