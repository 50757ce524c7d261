"""The small results table a sweep ends with (stdout): for each scenario and setting of the
grid, one row per selector with the mean ± sample sd over its seeds of the mean reward in
each true regime and overall (accuracies on classification scenarios); where results come
by phase (the portfolio) the test phase's Sharpe and total return instead, as `run` shows.
The whole store is `--export`'s; this is what the grid just asked for, at a glance."""

from __future__ import annotations

import json
from typing import IO, Any

import numpy as np
from rich.console import Console
from rich.table import Table

from ael_cli.table_text import cell

from .export import setting_of

PHASE_COLUMNS = (("sharpe", "test Sharpe"), ("total_return_pct", "test return %"))


def mean_sd(values: list[float], digits: int = 3) -> str:
    """'0.512 ± 0.034' over seeds (sample sd); the mean alone for one value; '–' for none."""
    values = [float(v) for v in values if v is not None and np.isfinite(v)]
    if not values:
        return "–"
    text = f"{np.mean(values):.{digits}f}"
    return text + (f" ± {np.std(values, ddof=1):.{digits}f}" if len(values) > 1 else "")


def _differences(configs: list[dict[str, Any]]) -> list[str]:
    """The configuration keys whose values differ between these settings (the grid's axes)."""
    keys = sorted({k for c in configs for k in c})
    return [k for k in keys if len({json.dumps(c.get(k), sort_keys=True) for c in configs}) > 1]


def _flat(config: dict[str, Any]) -> dict[str, Any]:
    """Nested settings one level flat: {"reflector_options": {"cadence": 7}} -> {"reflector_options.cadence": 7}."""
    out: dict[str, Any] = {}
    for k, v in config.items():
        if isinstance(v, dict) and v:
            out.update({f"{k}.{sub}": x for sub, x in v.items()})
        else:
            out[k] = v
    return out


def _value(v: Any) -> str:
    return ",".join(map(str, v)) if isinstance(v, list) else "–" if v is None else str(v)


def tables(rows: list[dict[str, Any]]) -> list[Table]:
    """One table per (scenario, setting) of the store rows `rows`, in grid order."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(setting_of(row["config"]), []).append(row)
    settings = {key: _flat({k: v for k, v in rs[0]["config"].items() if k not in ("selector", "seed")})
                for key, rs in groups.items()}
    out = []
    for key, rs in groups.items():
        scenario = rs[0]["scenario"]
        same_scenario = [c for k, c in settings.items() if groups[k][0]["scenario"] == scenario]
        axes = _differences(same_scenario)
        label = "".join(f" · {k.rsplit('.', 1)[-1]}={_value(settings[key].get(k))}" for k in axes)
        out.append(_table(f"{scenario}{label}", rs))
    return out


def _table(title: str, rows: list[dict[str, Any]]) -> Table:
    by_selector: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_selector.setdefault(row["selector"], []).append(row)
    results = [r["result"] for r in rows if r["status"] == "ok" and r["result"]]
    phases = any("phases" in r for r in results)
    regimes = list(dict.fromkeys(g for r in results for g in r.get("regimes", {})))
    seeds = len({r["seed"] for r in rows})
    # the title names the grid's settings (a stream's data path) and the columns its regimes:
    # text from data, shown through one sanitiser
    table = Table(title=cell(f"{title}: {seeds} seed(s), mean ± sd over seeds"), title_justify="left")
    table.add_column("selector")
    if phases:
        for _, name in PHASE_COLUMNS:
            table.add_column(name, justify="right")
    else:
        for g in regimes:
            table.add_column(cell(g), justify="right")
        table.add_column("overall", justify="right")
    table.add_column("runs", justify="right")
    for selector, rs in by_selector.items():
        ok = [r["result"] for r in rs if r["status"] == "ok" and r["result"]]
        label = ok[0]["selector"] if ok else selector  # a variant is part of what ran
        if phases:
            tests = [(r.get("phases") or {}).get("test") or {} for r in ok]
            cells = [mean_sd([t.get(k) for t in tests], 2) for k, _ in PHASE_COLUMNS]
        else:
            cells = [mean_sd([r["regimes"].get(g) for r in ok]) for g in regimes]
            cells.append(mean_sd([r["overall"] for r in ok]))
        failed = len(rs) - len(ok)
        table.add_row(cell(label), *cells, f"{len(ok)}" + (f" ({failed} failed)" if failed else ""))
    return table


def print_summary(rows: list[dict[str, Any]], out: IO[str]) -> None:
    """The tables of `rows` on `out` (the terminal's width, else 120 columns)."""
    console = Console(file=out)
    if not console.is_terminal:
        console = Console(file=out, width=120)
    for table in tables(rows):
        console.print(table)
