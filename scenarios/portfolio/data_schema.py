"""What the JSON files of a market data folder must hold (`--data FOLDER`).

pydantic v2, strict where the tools compute with a value, open (extra fields
allowed) where the files carry more than the tools read: yfinance snapshots
hold hundreds of fields, and the tools read numbers only through a guard
(`tools._num`), so only the containers they walk and the few values they
convert are typed here. NaN is allowed: yfinance writes it for a missing value. Dates are ISO `YYYY-MM-DD` (a time may follow).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from engine.store.documents import MAX_DATA_JSON_BYTES, parse_json, read_capped, validation_error


def _iso_date(text: str) -> str:
    try:
        dt.date.fromisoformat(text[:10])
    except ValueError:
        raise ValueError(f"expected an ISO date like 2025-03-14, got {text!r}") from None
    return text


IsoDate = Annotated[str, Field(max_length=40), AfterValidator(_iso_date)]
Number = float  # NaN allowed: yfinance writes it for a missing value, and the tools map it to None


class Open(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")


class TickerMeta(Open):
    sector: str | None = None


class Side(Open):
    avg_iv: Number | None = None


class Chain(Open):
    calls_summary: Side | None = None
    puts_summary: Side | None = None
    put_call_ratio: Number | None = None


class Static(Open):
    """One file of fundamentals/, analyst/, options/ or earnings/."""

    snapshot_date: IsoDate | None = None
    info: dict[str, Any] | None = None
    expiration_dates: list[Any] | None = None
    chains: dict[str, Chain] | None = None
    quarterly_income: dict[str, dict[str, Any]] | None = None


TICKERS = TypeAdapter(dict[str, TickerMeta])
SNAPSHOTS = TypeAdapter(dict[str, IsoDate])
STATIC = TypeAdapter(Static)


def read_checked(path, adapter: TypeAdapter) -> Any:
    """The JSON of `path`, size-capped and checked against `adapter`; AELError naming
    the file and the field otherwise. Returns the parsed JSON as written."""
    raw = read_capped(path, MAX_DATA_JSON_BYTES, "market data file")
    doc = parse_json(raw, path, "market data file", finite=False)
    try:
        adapter.validate_python(doc, strict=True)
    except ValidationError as err:
        raise validation_error(err, path) from None
    return doc
