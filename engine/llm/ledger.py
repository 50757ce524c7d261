"""Token and cost accounting across a session's LLM calls."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, fields
from typing import Any

from ..errors import AELError
from .result import LLMResult

LEDGER_VERSION = 1


@dataclass(frozen=True)
class UsageRecord:
    """One `complete_json` call: who answered, what it cost, whether it fell back."""

    purpose: str
    provider: str
    model: str
    input_tokens: int
    output_tokens: int
    cost_usd: float
    latency_s: float
    attempts: int
    fallback: bool
    reason: str = ""
    request_hash: str = ""
    repaired: bool = False
    trimmed: str = ""

    @classmethod
    def from_result(cls, result: LLMResult) -> "UsageRecord":
        return cls(result.purpose, result.provider, result.model, result.input_tokens,
                   result.output_tokens, result.cost_usd, result.latency_s, result.attempts,
                   result.fallback, result.reason, result.request_hash, result.repaired, result.trimmed)


@dataclass
class Totals:
    calls: int = 0
    fallbacks: int = 0
    repaired: int = 0    # answered after the repair round
    trimmed: int = 0     # calls whose prompt was cut to fit the context
    unanswered: int = 0  # calls with a reason and no fallback: failed under `raise`, or rejected as the caller's
    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0

    def add(self, r: UsageRecord) -> None:
        self.calls += 1
        self.fallbacks += int(r.fallback)
        self.repaired += int(r.repaired)
        self.trimmed += int(bool(r.trimmed))
        self.unanswered += int(bool(r.reason) and not r.fallback)
        self.attempts += r.attempts
        self.input_tokens += r.input_tokens
        self.output_tokens += r.output_tokens
        self.cost_usd += r.cost_usd
        self.latency_s += r.latency_s


class UsageLedger:
    """Per-call records and their totals (overall, per purpose, per provider).

    Safe to share between clients and the lab's worker thread; saved with a
    session through `to_dict` / `load`. Totals are recomputed from the
    records, so a loaded ledger cannot disagree with itself.
    """

    def __init__(self, records: list[UsageRecord] | None = None) -> None:
        self._records: list[UsageRecord] = list(records or [])
        self._lock = threading.Lock()

    def add(self, record: UsageRecord) -> None:
        with self._lock:
            self._records.append(record)

    def replace_with(self, other: "UsageLedger") -> None:
        """Take another ledger's records, keeping this object (the one the clients hold)."""
        records = other.records
        with self._lock:
            self._records = records

    @property
    def records(self) -> list[UsageRecord]:
        with self._lock:
            return list(self._records)

    def totals(self) -> Totals:
        total = Totals()
        for r in self.records:
            total.add(r)
        return total

    def by_purpose(self) -> dict[str, Totals]:
        return self._group("purpose")

    def by_provider(self) -> dict[str, Totals]:
        return self._group("provider")

    def _group(self, attr: str) -> dict[str, Totals]:
        groups: dict[str, Totals] = {}
        for r in self.records:
            groups.setdefault(getattr(r, attr), Totals()).add(r)
        return groups

    def to_dict(self) -> dict[str, Any]:
        """Records plus totals; the totals are for readers, `load` ignores them."""
        return {
            "version": LEDGER_VERSION,
            "records": [asdict(r) for r in self.records],
            "totals": asdict(self.totals()),
            "by_purpose": {k: asdict(v) for k, v in self.by_purpose().items()},
            "by_provider": {k: asdict(v) for k, v in self.by_provider().items()},
        }

    @classmethod
    def load(cls, data: Any) -> "UsageLedger":
        """Rebuild a ledger saved by `to_dict`; raises `AELError` if it is not one."""
        if not isinstance(data, dict) or not isinstance(data.get("records"), list):
            raise AELError("llm usage ledger: expected an object with a 'records' list")
        if data.get("version", LEDGER_VERSION) > LEDGER_VERSION:
            raise AELError(f"llm usage ledger: version {data['version']} is newer than this program reads")
        names = {f.name for f in fields(UsageRecord)}
        records = []
        for i, raw in enumerate(data["records"]):
            if not isinstance(raw, dict) or set(raw) - names:
                raise AELError(f"llm usage ledger: record {i} has unknown or missing fields")
            try:
                records.append(UsageRecord(**raw))
            except TypeError:
                raise AELError(f"llm usage ledger: record {i} has unknown or missing fields") from None
        return cls(records)
