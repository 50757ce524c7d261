"""Why episode N went as it did: the episode re-run with instruments, nothing stored per episode.

`explain(session, n)` brings a replica of the session (engine/explain_replica.py) to the
start of episode n from the live run's nearest checkpoint (engine/timetravel.py) and steps
episode n once more while watching it; the live session is only read. The replay is
exact, so what it reports is what happened:

- the input as the agent saw it (`Scenario.input_seen`: a ticket's text and endpoint, an
  article's subject and body, a bar's prices and tool calls, a synthetic pull);
- the policy played, the phase, and the selector's draws (Thompson sampling's posterior
  draw per arm, with each arm's Beta(α, β) before the episode);
- every retrieval made in the episode: the entries, their scores, and for the composite
  relevance score its terms (Σ match bonuses × (0.5 + 0.5·quality) × (0.3 + 0.7·e^(−0.01Δ))
  × tier boost); for the first retrievals, what every other policy in the pool would have
  retrieved for the same query at the same moment, the differences marked;
- the insight and the procedural rules given to the agent;
- the decision (the action) and the outcome, as the episode log recorded it;
- with a model (a session answering from a cassette): every call of the episode, its
  prompt (secrets scrubbed), the reply, tokens, cost, latency, attempts, repair and fallback.
"""

from __future__ import annotations

import math
import threading
import weakref
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from .errors import AELError
from .explain_columns import side_by_side
from .decision import lines as decision_lines
from .explain_replica import Basis, Replica
from .memory import TIER_BOOST
from .shown_text import shown

if TYPE_CHECKING:
    from .session import Session

SHOWN = 12  # entries shown per retrieval in the text form (--json has them all)
SIDE_BY_SIDE = 120  # the width of the side-by-side bands when no terminal gives one
DETAILED = 3  # retrievals whose entries the text form lists (a portfolio bar makes 11; the rest a line each)
COMPARED_RETRIEVALS = 12  # retrievals per episode compared across policies (a portfolio bar makes 11)


def _terms(session: "Session", spec, entry, query: dict[str, Any], score: float) -> dict[str, Any]:
    order = spec.order if not spec.code else "code"
    if order != "relevance":
        return {"order": order, "score": score}
    memory = session.memory
    matched = {k: b for k, b in memory.match_bonuses.items()
               if k in query and k in entry.metadata and entry.metadata[k] == query[k]}
    delta = max(memory.episode - entry.episode, 0)
    terms = {"match": sum(matched.values()), "matched": matched, "quality": 0.5 + 0.5 * entry.quality,
             "recency": 0.3 + 0.7 * math.exp(-0.01 * delta), "age": delta,
             "tier_boost": TIER_BOOST.get(entry.tier, 1.0)}
    terms["product"] = terms["match"] * terms["quality"] * terms["recency"] * terms["tier_boost"]
    return {"order": order, "score": score, **terms}


class _Watched:
    """A provider that hands every request and reply to `seen` (the explanation's model calls)."""

    def __init__(self, inner, seen: list) -> None:
        self._inner, self._seen = inner, seen

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    def send(self, request):
        from .secrets import scrub

        entry = {"purpose": getattr(request, "purpose", ""), "model": request.model,
                 "prompt": [{k: scrub(str(v)) for k, v in m.items()} for m in request.messages]}
        self._seen.append(entry)
        try:
            reply = self._inner.send(request)
        except Exception as err:
            entry["error"] = scrub(str(err))
            raise
        entry["reply"] = scrub(reply.text)
        return reply


def _hit(session, spec, h, query, fields: tuple[str, ...]) -> dict[str, Any]:
    e = h.entry
    return {"id": e.id, "tier": e.tier, "episode": e.episode, "score": h.score, "content": e.content,
            "metadata": {k: v for k, v in e.metadata.items()}, "terms": _terms(session, spec, e, query, h.score),
            "fields": {k: e.metadata[k] for k in fields if k in e.metadata}}


def fields_that_matter(scenario, pool) -> tuple[str, ...]:
    """The metadata a person checks on a retrieved entry: what any policy of the pool filters or
    groups on, and what the relevance score matches (a ticket's endpoint and route)."""
    keys = dict.fromkeys(scenario.match_bonuses)
    for p in pool:
        keys.update(dict.fromkeys(f.key for f in p.filters))
        if p.per_group:
            keys[p.per_group] = None
    return tuple(keys)


def reading(spec, query: dict[str, Any]) -> str:
    """What a policy really read, in words: its order, its filters (with the query's value), its
    window, groups and floor, its tiers. What it did not filter on is not named as if it had."""
    if spec.retrieves_nothing:
        return "retrieves nothing"
    if spec.code:
        return f"up to {spec.k} entries its own code picks and orders, from {', '.join(spec.tiers)}"
    top = {"similarity": f"the {spec.k} most similar to the query", "recency": f"the {spec.k} newest",
           "relevance": f"the {spec.k} most relevant (match × quality × recency × tier)"}[spec.order]
    if spec.per_group:
        top += f" of each {spec.per_group}"
    where = [f"the query's {f.key} ({query.get(f.key, '?')})" if f.equals == "query" else f"{f.key} = {f.equals}"
             for f in spec.filters]
    out = top + (f" with {' and '.join(where)}" if where else ", no filter")
    if spec.window:
        out += f", among the newest {spec.window}" + (" such" if where else "")
    if spec.min_score:
        out += f", score ≥ {spec.min_score:g}"
    if spec.format in ("sliding_window", "ranked_truncate"):
        out += (f", then its first {spec.keep_first} and last {spec.keep_last}" if spec.format == "sliding_window"
                else f", cut to {spec.token_budget} tokens")
    return out + f", from {', '.join(spec.tiers)}"


_REPLICAS: "weakref.WeakKeyDictionary[Session, Replica]" = weakref.WeakKeyDictionary()
_REPLICAS_LOCK = threading.Lock()


def replica_of(session: "Session", live: Basis) -> Replica:
    """The session's replica (made on the first explanation, and again if its configuration
    changed; kept while the session lives)."""
    with _REPLICAS_LOCK:
        replica = _REPLICAS.get(session)
        if replica is None or replica.config != live.config:
            replica = _REPLICAS[session] = Replica(live)
        return replica


def basis(session: "Session", n: int) -> Basis:
    """What explaining episode n needs of the live session: checked, and copied (cheap; call it
    under the lock that guards the session, then `explain_from` needs none)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise AELError(f"episode {n!r} is not an episode number")
    reach = session.timeline.reach(session)
    if not 0 <= n < reach:
        raise AELError(f"episode {n} is out of range: this run has episodes 0..{reach - 1}" if reach else
                       "this run has no episode yet")
    return Basis.of(session)


def explain(session: "Session", n: int) -> dict[str, Any]:
    """The explanation of episode n (a finished episode of this run), as plain JSON values.
    The session itself is only read: a replica of it replays the episode (engine/explain_replica.py)."""
    return explain_from(session, basis(session, n), n)


def explain_from(session: "Session", live: Basis, n: int) -> dict[str, Any]:
    """`explain` from a basis taken earlier: safe beside the live session's steps. An episode
    explained before, on the same run, is not replayed again (the same report is returned:
    treat it as read-only)."""
    replica = replica_of(session, live)
    with replica.lock:
        kept = replica.explained(live, n)
        if kept is not None:
            return kept
        report = _explain(replica.move_to(live, n), n, live.proposed)
        replica.keep(live, n, report)
        return report


def _regime_name(scenario, regime: Any) -> str | None:
    """The scenario's name of a regime index (what the lab's status line shows), else None."""
    names = list(getattr(scenario, "regime_names", None) or [])
    return names[regime] if isinstance(regime, int) and 0 <= regime < len(names) else None


def _explain(session: "Session", n: int, proposed: tuple = ()) -> dict[str, Any]:
    if session.blocked_reason is not None:
        raise AELError(f"episode {n} cannot be replayed: {session.blocked_reason}")
    posteriors = [{"arm": a.name, "alpha": a.alpha, "beta": a.beta, "mean": a.mean, "pulls": a.pulls}
                  for a in session.selector.arms]
    memory, scenario, pool = session.memory, session.scenario, session.pool
    retrievals: list[dict[str, Any]] = []
    fields = fields_that_matter(scenario, pool.values())

    def observe(spec, query, similarity, hits) -> None:
        """Each policy read of the episode, and (for the first few) every other policy's read of
        the same query at the same moment: the hook runs before the read's hits are counted."""
        if len(retrievals) >= COMPARED_RETRIEVALS * 4:
            return
        record: dict[str, Any] = {"policy": spec.name, "query": {k: v for k, v in query.items()
                                                                 if not k.startswith("_")},
                                  "reads": reading(spec, query)}
        record["hits"] = [_hit(session, spec, h, query, fields) for h in hits]
        if len(retrievals) < COMPARED_RETRIEVALS:
            chosen_ids = {h["id"] for h in record["hits"]}
            compared = {}
            beside = {**pool, **{p.name: p for p in proposed if p.name not in pool}}  # the arm being decided too
            for name, other in beside.items():
                if name == spec.name:
                    continue
                ohits = memory.retrieve(other, query, similarity, count=False)
                ids = [h.entry.id for h in ohits]
                compared[name] = {
                    "hits": [{"id": h.entry.id, "tier": h.entry.tier, "episode": h.entry.episode,
                              "score": h.score, "content": h.entry.content,
                              "shared": h.entry.id in chosen_ids} for h in ohits],
                    "only_here": [i for i in ids if i not in chosen_ids],
                    "missing": [i for i in chosen_ids if i not in set(ids)],
                    "same": set(ids) == chosen_ids, "proposed": name not in pool}
            record["other_policies"] = compared
        retrievals.append(record)

    calls: list[dict[str, Any]] = []
    clients = [c for c in {id(c): c for c in (session.llm.agent, session.llm.reflector) if c is not None}.values()
               if hasattr(c, "provider")]
    for c in clients:
        c.provider = _Watched(c.provider, calls)
    spent = len(session.usage.records)
    session.explaining = True  # the agent reports how it decided (engine/decision.py)
    try:
        with memory.observing(observe):
            session.step()
    finally:
        session.explaining = False
        for c in clients:
            c.provider = c.provider._inner
    usage = [asdict(r) for r in session.usage.records[spent:]]
    record = session.history[-1]
    for r in retrievals:  # whose read each was: the arm played, or what it fell back on
        r["role"] = "played" if r["policy"] == record["policy"] else "its fallback"
    query, ctx = session.acted
    draws = getattr(session.selector, "last_draws", None) if record["phase"] != "warmup" else None
    report = {
        "scenario": session.config.scenario, "seed": session.config.seed, "selector": session.config.selector,
        "episode": n, "phase": record["phase"], "regime": record["regime"],
        "regime_name": _regime_name(scenario, record["regime"]),
        "input": scenario.input_seen(query),
        "policy": {"played": record["policy"], "retrieved_with": ctx.hits_from or record["policy"],
                   "why": ("warm-up: the first arm is played with no draw" if record["phase"] == "warmup" else
                           "the highest posterior draw" if draws else f"the {session.selector.kind} selector's choice"),
                   "draws": dict(draws) if draws else None, "posteriors": posteriors},
        "retrievals": retrievals,
        "proposed": [p.name for p in proposed],  # arms waiting for a decision, compared beside the pool's
        "insight": ctx.insight,
        "rules": [{"id": r.id, "content": r.content} for r in ctx.rules],
        "decision": record["action"],
        # how the agent reached it, as the agent reported it (engine/decision.py); None: it says nothing
        "decided": session.decided.to_dict() if session.decided is not None else None,
        "outcome": {"result": record["result"], "reward": record["reward"], "score": record["score"],
                    "correct": record["correct"], **({"info": record["info"]} if "info" in record else {})},
        "record": record,
        "model_calls": [{**call, **({"usage": usage[i]} if i < len(usage) else {})} for i, call in enumerate(calls)],
    }
    return report


def render(report: dict[str, Any], width: int | None = None) -> str:
    """The explanation as text for a terminal (every line through engine/shown_text.py: an
    escape sequence in a stream's text is printed, not obeyed). What the other policies would
    have retrieved is set side by side, the played policy's column first, in bands no wider
    than `width` (engine/explain_columns.py; a file or a pipe gets bands of SIDE_BY_SIDE)."""
    out: list[str] = []
    for kind, part in parts(report):
        if kind == "text":
            out.extend(part)
        else:
            out.append("  What each policy would have retrieved here (= the played one did too, + it did not):")
            out.extend(f"  {line}".rstrip() for line in side_by_side(part, (width or SIDE_BY_SIDE) - 2))
    # the input's text, entries, rules and a model's reply come from data: shown, never obeyed
    return "\n".join(shown(line) for line in out) + "\n"


def _query_text(r: dict[str, Any]) -> str:
    q = ", ".join(f"{k}={v}" for k, v in r["query"].items())
    return f"for {q}" if q else "for the episode"


def regime_text(report: dict[str, Any]) -> str:
    """The true regime as the lab's status line names it (the scenario's name for it: R0, bull)."""
    name = report.get("regime_name")
    return f"true regime {name if name is not None else report['regime']}"


def parts(report: dict[str, Any]) -> list[tuple[str, Any]]:
    """The explanation in order: ("text", lines), and ("compare", retrieval) where the other
    policies' retrievals go (`render` lists them or sets them side by side; the lab scrolls them)."""
    found: list[tuple[str, Any]] = []
    out: list[str] = []
    add = out.append
    add(f"Episode {report['episode']} · {report['phase']} · {regime_text(report)} · "
        f"{report['scenario']} seed {report['seed']} · {report['selector']}")
    add("")
    add("Input, as the agent saw it")
    for k, v in report["input"].items():
        if isinstance(v, dict):
            add(f"  {k}:")
            for kk, vv in v.items():
                add(f"    {kk}: {vv}")
        else:
            add(f"  {k}: {v}")
    pol = report["policy"]
    add("")
    acted_as = (report.get("decided") or {}).get("acted_as")
    add(f"Policy played: {pol['played']}" + (f" (retrieved with its fallback {pol['retrieved_with']})"
                                             if pol["retrieved_with"] != pol["played"] else "")
        + (f" (acting as its fallback {acted_as}: its own vote was too weak)" if acted_as else "")
        + f" — {pol['why']}")
    for p in pol["posteriors"]:
        draw = pol["draws"].get(p["arm"]) if pol["draws"] else None
        add(f"  {p['arm']:<22} Beta({p['alpha']:.2f}, {p['beta']:.2f}) mean {p['mean']:.3f}"
            + (f"  draw {draw:.3f}" if draw is not None else "") + ("  ◀" if p["arm"] == pol["played"] else ""))
    if report.get("decided"):
        add("")
        out.extend(decision_lines(report["decided"]))
    for i, r in enumerate(report["retrievals"]):
        add("")
        add(f"Retrieval {i + 1} by {r['policy']}: {r.get('reads') or _query_text(r)} → {len(r['hits'])} entries")
        if i >= DETAILED:
            continue
        if r.get("other_policies"):
            found.append(("text", out))
            found.append(("compare", r))
            out = []
            add = out.append
        for h in r["hits"][:SHOWN]:
            t = h["terms"]
            why = (f" = match {t['match']:.2f} × quality {t['quality']:.2f} × recency {t['recency']:.2f}"
                   f" (age {t['age']}) × boost {t['tier_boost']:.1f}" if t["order"] == "relevance"
                   else f" ({t['order']})")
            fields = "".join(f" {k}={v}" for k, v in h.get("fields", {}).items())
            add(f"  {h['id']} [{h['tier']}, ep {h['episode']}] score {h['score']:.3f}{why}{fields}")
            add(f"      {h['content'][:140]}")
        if len(r["hits"]) > SHOWN:
            add(f"  … {len(r['hits']) - SHOWN} more entries (--json has them all)")
    if len(report["retrievals"]) > DETAILED:
        add(f"(the entries of retrievals {DETAILED + 1} to {len(report['retrievals'])} are in --json)")
    add("")
    ins = report["insight"]
    add(f"Insight applied: {ins['insight']} (confidence {ins.get('confidence', 0):.2f})" if ins else
        "Insight applied: none")
    add(f"Rules applied: {len(report['rules'])}")
    for r in report["rules"]:
        add(f"  {r['id']}: {r['content']}")
    add("")
    for i, c in enumerate(report.get("model_calls", [])):
        u = c.get("usage", {})
        add(f"Model call {i + 1}: {c['model']} {c.get('purpose', '')} · {u.get('input_tokens', '?')} in, "
            f"{u.get('output_tokens', '?')} out tokens · ${u.get('cost_usd', 0):.4f} · {u.get('latency_s', 0):.2f} s · "
            f"{u.get('attempts', '?')} attempt(s)" + (" · repaired" if u.get("repaired") else "")
            + (" · fell back offline" if u.get("fallback") else ""))
        for m in c["prompt"]:
            add(f"  {m.get('role', '?')}: {m.get('content', '')[:400]}")
        add(f"  reply: {c.get('reply', c.get('error', ''))[:400]}")
    add(f"Decision: {report['decision']}")
    o = report["outcome"]
    add(f"Outcome: {o['result']} (reward {o['reward']:.3f}" + (f", correct {o['correct']}" if o["correct"]
                                                              is not None else "") + ")")
    found.append(("text", out))
    return found
