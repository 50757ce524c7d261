"""Retrieval policies: small declarative specs the bandit chooses between.

A policy says *how* the agent reads its memory: which tiers it may see, how
many entries, in what order, filtered how relative to the query, within what
token budget and in what format, and what to fall back on. Because a policy is
data, a proposed one can be shown, diffed, edited and validated before it
becomes an arm; `PolicySpec.from_dict` is the single validator used by the
CLI, the reflectors and the lab's editor, and it names the bad field.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any

from .errors import AELError

TIERS = ("episodic", "semantic", "procedural")
ORDERS = ("relevance", "recency", "similarity")
FORMATS = ("none", "full", "sliding_window", "ranked_truncate")
MAX_K = 500
_FIELDS = (
    "name", "tiers", "k", "order", "filters", "window", "per_group", "min_score",
    "format", "keep_first", "keep_last", "token_budget", "vote_share", "vote_k", "fallback",
    "description", "code",
)


@dataclass(frozen=True)
class Filter:
    """Keep entries whose metadata[key] equals the query's metadata[key]
    (`equals="query"`) or a literal value."""

    key: str
    equals: Any = "query"


@dataclass(frozen=True)
class PolicySpec:
    """One retrieval policy.

    - `tiers`: visible tiers; empty means the policy retrieves nothing.
    - `k`: entries returned (per group when `per_group` is set).
    - `order`: `relevance` (the paper's composite score), `recency` (newest
      first) or `similarity` (a scenario-supplied similarity to the query).
    - `filters`: metadata equalities applied before ordering.
    - `window`: only the newest `window` entries that pass the filters are candidates.
    - `per_group`: a metadata key; `k` best entries for each value of it.
    - `min_score`: candidates scoring below this are dropped.
    - `format`: `full` (top-k as is), `sliding_window` (first `keep_first` and
      last `keep_last` of the ranked top-k), `ranked_truncate` (add ranked
      entries while `len(content)//4` tokens fit `token_budget`; the first is
      always kept) or `none`.
    - `vote_share`: the share of evidence weight an answer needs before an
      agent that votes over the retrieved entries acts on it.
    - `vote_k`: how many of the retrieved entries such a vote weighs (None: the
      agent's own default, e.g. the support router's 5 nearest).
    - `fallback`: the name of a policy to use when this one yields no usable evidence.
    - `code`: optional Python source of `def retrieve(entries, query)` (the
      paper's RegimeFilteredRetrieval kind) that picks and orders the visible
      tiers' entries itself; `k` then caps what it returns. Checked by the
      static filter of `engine.sandbox.codepolicy` here, smoke-tested before it is
      admitted, run only in the session's sandboxed worker (`engine.sandbox.codearms`),
      and never admitted by a standing rule unless the user allowed that
      explicitly.
    """

    name: str
    tiers: tuple[str, ...] = ()
    k: int = 0
    order: str = "relevance"
    filters: tuple[Filter, ...] = ()
    window: int | None = None
    per_group: str | None = None
    min_score: float = 0.0
    format: str = "full"
    keep_first: int = 1
    keep_last: int = 3
    token_budget: int | None = None
    vote_share: float = 0.5
    vote_k: int | None = None
    fallback: str | None = None
    description: str = ""
    code: str | None = None

    @property
    def retrieves_nothing(self) -> bool:
        return not self.tiers or (self.k == 0 and not self.code) or self.format == "none"

    @cached_property
    def fingerprint(self) -> str:
        """A stable text key of what the policy does (for caches): every field but
        its name and description, so a renamed copy shares the key."""
        d = self.to_dict()
        d.pop("name")
        d.pop("description")
        return json.dumps(d, sort_keys=True)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["tiers"] = list(self.tiers)
        d["filters"] = [asdict(f) for f in self.filters]
        return d

    @classmethod
    def from_dict(cls, raw: Any, known_policies: set[str] | None = None) -> "PolicySpec":
        """Validate and normalise a policy; raise `AELError` naming the bad field."""
        if not isinstance(raw, dict):
            raise AELError("policy: expected a JSON object with at least a 'name'")
        unknown = sorted(set(raw) - set(_FIELDS))
        if unknown:
            raise AELError(f"policy field {unknown[0]!r}: unknown field (allowed: {', '.join(_FIELDS)})")
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip() or not name.replace("_", "").replace("-", "").isalnum():
            raise AELError("policy field 'name': must be a non-empty identifier (letters, digits, _ or -)")
        tiers = raw.get("tiers", [])
        if isinstance(tiers, str) or not isinstance(tiers, (list, tuple)):
            raise AELError("policy field 'tiers': must be a list drawn from episodic, semantic, procedural")
        for tier in tiers:
            if tier not in TIERS:
                raise AELError(f"policy field 'tiers': unknown tier {tier!r} (allowed: {', '.join(TIERS)})")
        if len(set(tiers)) != len(tiers):
            raise AELError("policy field 'tiers': a tier is listed twice")
        k = _int(raw, "k", 0, 0, MAX_K)
        order = raw.get("order", "relevance")
        if order not in ORDERS:
            raise AELError(f"policy field 'order': {order!r} is not one of {', '.join(ORDERS)}")
        filters_raw = raw.get("filters", [])
        if not isinstance(filters_raw, (list, tuple)):
            raise AELError("policy field 'filters': must be a list of {\"key\": ..., \"equals\": ...}")
        filters = []
        for f in filters_raw:
            if not isinstance(f, dict) or not isinstance(f.get("key"), str) or not f["key"]:
                raise AELError("policy field 'filters': each filter needs a string 'key'")
            if set(f) - {"key", "equals"}:
                raise AELError("policy field 'filters': a filter has only 'key' and 'equals'")
            equals = f.get("equals", "query")
            if not isinstance(equals, (str, int, float, bool)):
                raise AELError("policy field 'filters': 'equals' must be \"query\" or a plain value")
            filters.append(Filter(f["key"], equals))
        window = raw.get("window")
        if window is not None:
            window = _int(raw, "window", None, 1, 100_000)
        per_group = raw.get("per_group")
        if per_group is not None and (not isinstance(per_group, str) or not per_group):
            raise AELError("policy field 'per_group': must be a metadata key or null")
        min_score = _float(raw, "min_score", 0.0, 0.0, 1e6)
        fmt = raw.get("format", "full")
        if fmt not in FORMATS:
            raise AELError(f"policy field 'format': {fmt!r} is not one of {', '.join(FORMATS)}")
        keep_first = _int(raw, "keep_first", 1, 0, MAX_K)
        keep_last = _int(raw, "keep_last", 3, 0, MAX_K)
        token_budget = raw.get("token_budget")
        if token_budget is not None:
            token_budget = _int(raw, "token_budget", None, 1, 100_000)
        if fmt == "ranked_truncate" and token_budget is None:
            raise AELError("policy field 'token_budget': required when format is ranked_truncate")
        vote_share = _float(raw, "vote_share", 0.5, 0.0, 1.0)
        vote_k = raw.get("vote_k")
        if vote_k is not None:
            vote_k = _int(raw, "vote_k", None, 1, MAX_K)
        fallback = raw.get("fallback")
        if fallback is not None:
            if not isinstance(fallback, str) or fallback == name:
                raise AELError("policy field 'fallback': must name another policy")
            if known_policies is not None and fallback not in known_policies:
                raise AELError(f"policy field 'fallback': no policy named {fallback!r} in the pool")
        description = raw.get("description", "")
        if not isinstance(description, str):
            raise AELError("policy field 'description': must be a string")
        code = raw.get("code")
        if code is not None:
            if not isinstance(code, str) or not code.strip():
                raise AELError("policy field 'code': must be Python source of def retrieve(entries, query)")
            from .sandbox.codepolicy import check_source

            try:
                check_source(code, name)
            except AELError as err:
                raise AELError(f"policy field 'code': {err}") from None
        return cls(
            name=name, tiers=tuple(tiers), k=k, order=order, filters=tuple(filters), window=window,
            per_group=per_group, min_score=min_score, format=fmt, keep_first=keep_first,
            keep_last=keep_last, token_budget=token_budget, vote_share=vote_share, vote_k=vote_k,
            fallback=fallback, description=description, code=code,
        )


def _int(raw: dict, key: str, default: int | None, lo: int, hi: int) -> int:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise AELError(f"policy field {key!r}: must be an integer between {lo} and {hi}")
    if not lo <= value <= hi:
        raise AELError(f"policy field {key!r}: {value} is outside {lo}..{hi}")
    return value


def _float(raw: dict, key: str, default: float, lo: float, hi: float) -> float:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AELError(f"policy field {key!r}: must be a number between {lo} and {hi}")
    if not lo <= value <= hi:
        raise AELError(f"policy field {key!r}: {value} is outside {lo}..{hi}")
    return float(value)


def _paper_policies() -> tuple[PolicySpec, ...]:
    """The paper's five initial policies (facts page §2), in arm order."""
    return (
        PolicySpec("none", (), 0, format="none", description="No retrieval."),
        PolicySpec("recent_window", ("episodic",), 5, format="sliding_window", keep_first=1, keep_last=3,
                   description="Episodic only; first 1 and last 3 of the relevance-ranked top 5."),
        PolicySpec("full_detailed", TIERS, 5, format="full",
                   description="All tiers, the relevance-ranked top 5 in full."),
        PolicySpec("compressed", ("semantic", "procedural"), 6, format="ranked_truncate", token_budget=300,
                   description="Distilled tiers only, ranked and cut to 300 tokens."),
        PolicySpec("aggressive_learner", TIERS, 8, format="ranked_truncate", token_budget=500,
                   description="All tiers, top 8 ranked and cut to 500 tokens."),
    )


PAPER_POLICIES: tuple[PolicySpec, ...] = _paper_policies()



def voting_pool(*, items: str, nothing: str, group: str, group_noun: str,
                window: int | None = None) -> tuple[PolicySpec, ...]:
    """The five-arm pool of the worlds whose agent votes over past items with the 5 nearest
    (support, news, stream: the paper's 20NG section), in arm order: none, recent_window,
    compressed, full_detailed, class_balanced. `items` names what memory holds ("tickets"),
    `nothing` says what `none` answers, `group` is the metadata key class_balanced balances
    over and `group_noun` its word; `window` bounds the similarity arms to the newest rows
    (a long stream)."""
    among = f" among the last {window:,}" if window else ""
    episodic = ("episodic",)
    return (
        PolicySpec("none", (), 0, format="none", description=nothing),
        PolicySpec("recent_window", episodic, 20, order="recency",
                   description=f"The last 20 {items}; the 5 most similar vote."),
        PolicySpec("compressed", episodic, 10, order="similarity", window=window,
                   description=f"The 10 {items} most similar to the query{among}."),
        PolicySpec("full_detailed", episodic, 200, order="recency",
                   description=f"The last 200 {items}; the 5 most similar vote."),
        PolicySpec("class_balanced", episodic, 3, order="similarity", per_group=group, window=window,
                   description=f"The 3 most similar {items} of each {group_noun} seen so far{among}."),
    )
