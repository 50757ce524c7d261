"""The prior methods on the support stream: the deterministic critic (digest §9) and its channel.

The critic. After ticket t it writes one record from what the offline
reflector may know once the ticket is resolved:
- `salient`: the ticket's 3 tokens with the highest log-odds for its gold route
  against the other routes among the earlier tickets (every earlier ticket is in
  memory, with its gold route);
- the endpoint, the prediction, the gold route, whether it was right;
- `fixers`: the initial policies that would have routed it right (the
  counterfactual replay of the prediction table);
- `label`: the lagged window label, never the true regime: the label of the
  last completed slow window (40 tickets) from the reflector's side
  information, "text-led" when at least half of its tickets carried a route
  signal in the text, "endpoint-led" otherwise ("unknown" before the first).
A failure's directives say its endpoint and its salient tokens mean the gold
route; a success says nothing new.

The channel. What a method shows becomes extra weighted votes for the same
5-NN router (`prior_route`): a record votes for its gold route with weight
Jaccard(ticket tokens, its salient tokens) + 1 if its endpoint is the
ticket's; a shown rule that fires (its endpoint, or its token in the text)
votes 1 for its route. They add to the base policy's neighbour weights; the
heaviest route wins (the base vote's route among equals), and with no weight
at all the router's default route answers. A method may add votes of its own
(`Shown.extra["votes"]`, {route: weight}) and name the policy whose
neighbours vote instead of the base one (`Shown.extra["policy"]`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.prior.llm_critic import critic_messages

from .bank import DEFAULT_ROUTE, ROUTES
from .policies import BY_NAME, INITIAL_POOL, route_live
from .prior_evolution import SupportEvolution
from .text import jaccard, tokens

SALIENT = 3
WINDOW = 40           # the slow window whose label lags by one
TEXT_LED = 0.5

CRITIC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["critique", "route", "tokens"],
    "properties": {
        "critique": {"type": "string", "maxLength": 300},
        "route": {"type": "string", "enum": list(ROUTES)},
        "tokens": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": SALIENT},
    },
}
ASK = {
    "reflexion": "In one sentence, critique the routing: which words or endpoint should have told the route.",
    "expel": "Write one reusable lesson, starting 'RULE:', on which words or endpoint mean which route.",
    "meta-reflexion": "In one sentence, write the observation this ticket supports.",
}


class SupportPriorWorld(SupportEvolution):
    """One session's adapter to the support stream (no learning state; caches are derived)."""

    name = "support"
    critic_schema = CRITIC_SCHEMA

    def __init__(self, scenario):
        self.scenario = scenario
        tks = [scenario.ticket(t) for t in range(scenario.n_episodes)]
        self._tokens = [tokens(tk["text"]) for tk in tks]
        self._gold = np.array([ROUTES.index(tk["gold_route"]) for tk in tks])
        vocab = {w: i for i, w in enumerate(sorted(set().union(*self._tokens)))}
        self._vocab = vocab
        self._incidence = np.zeros((len(tks), max(len(vocab), 1)), dtype=bool)
        for t, toks in enumerate(self._tokens):
            self._incidence[t, [vocab[w] for w in toks]] = True
        self._labels: dict[int, str] = {}

    # ------------------------------------------------------------ the critic
    def window_label(self, t: int) -> str:
        """The label of the last slow window completed before ticket t."""
        k = t // WINDOW - 1
        if k < 0:
            return "unknown"
        if k not in self._labels:
            side = self.scenario.side_info(k * WINDOW, (k + 1) * WINDOW)
            self._labels[k] = "text-led" if side["route_signal_share"] >= TEXT_LED else "endpoint-led"
        return self._labels[k]

    def salient(self, t: int) -> list[str]:
        """The ticket's tokens ranked by log-odds for its gold route among the earlier tickets."""
        words = sorted(self._tokens[t])
        if not words:
            return []
        cols = [self._vocab[w] for w in words]
        seen = self._incidence[:t][:, cols]
        gold = self._gold[:t] == self._gold[t]
        n_gold, n_other = seen[gold].sum(axis=0), seen[~gold].sum(axis=0)
        odds = (np.log((n_gold + 0.5) / (gold.sum() + 1.0)) - np.log((n_other + 0.5) / ((~gold).sum() + 1.0)))
        order = sorted(range(len(words)), key=lambda i: (-odds[i], words[i]))
        return [words[i] for i in order[:SALIENT]]

    def record(self, t: int, query, outcome, label: str) -> dict[str, Any]:
        info = outcome.info
        pred, gold = info["route"], info["gold_route"]
        ok = pred == gold
        table = self.scenario.table
        fixers = [p.name for p in INITIAL_POOL if table.correct[t, table.column_of(p.name)]]
        salient = self.salient(t)
        endpoint = query.metadata["endpoint"]
        window = self.window_label(t)
        if ok:
            text = f"#{t} {endpoint} [{' '.join(salient)}] → {gold} confirmed"
        else:
            text = (f"#{t} {endpoint} [{' '.join(salient)}] → {gold}, not {pred}"
                    + (f"; fixed by {', '.join(fixers)}" if fixers else "; no policy fixed it"))
        return {"episode": t, "text": text, "success": ok if label != "always" else True, "label": window,
                "keys": {"primary": endpoint, "label": window}, "endpoint": endpoint, "salient": salient,
                "route": gold, "pred": pred, "correct": ok, "fixers": fixers}

    # ------------------------------------------------------------ directives
    def directives(self, record: dict[str, Any]) -> list[tuple]:
        if record["correct"]:
            return []
        return [("endpoint", record["endpoint"], record["route"])] + \
               [("token", w, record["route"]) for w in record["salient"]]

    @staticmethod
    def condition(directive: tuple) -> tuple:
        return tuple(directive[:2])

    def directive_text(self, directive: tuple) -> str:
        kind, what, route = directive
        return f"RULE: {'endpoint ' + what if kind == 'endpoint' else repr(what)} ⇒ {route}"

    def fires(self, directive: tuple, query) -> bool:
        return _fires(directive, query)

    def query_keys(self, query) -> dict[str, Any]:
        t = query.episode
        return {"primary": query.metadata["endpoint"], "label": self.window_label(t), "tokens": self._tokens[t]}

    def similarity(self, keys: dict[str, Any], record: dict[str, Any]) -> float:
        return jaccard(keys["tokens"], frozenset(record["salient"]))

    def record_line(self, record: dict[str, Any]) -> str:
        return record["text"]

    # ------------------------------------------------------------ the LLM critic
    def critic_messages(self, record: dict[str, Any], method: str) -> list[dict[str, str]]:
        t = record["episode"]
        facts = {"ticket": self.scenario.ticket(t)["text"], "endpoint": record["endpoint"],
                 "predicted": record["pred"], "gold": record["route"], "correct": record["correct"],
                 "policies_that_would_have_been_right": record["fixers"], "window_label": record["label"],
                 "routes": list(ROUTES)}
        return critic_messages(method, "a support-ticket router", "Quote words only from the ticket.",
                               ASK.get(method, ASK["reflexion"]), "the ticket just resolved", facts)

    def critic_answer(self, record: dict[str, Any]) -> dict[str, Any]:
        return {"critique": record["text"][:300], "route": record["route"], "tokens": list(record["salient"])}

    def from_answer(self, record: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        mine = self._tokens[record["episode"]]
        words = [w for w in (x.strip().lower() for x in answer["tokens"]) if w in mine]
        # the route stays the gold one: a critique may not relabel the ticket it critiques
        return {**record, "text": f"#{record['episode']} {answer['critique'].strip()}",
                "salient": list(dict.fromkeys(words)) or record["salient"]}


def prior_votes(shown, query) -> np.ndarray:
    """Extra weight per route from what a method shows (records and firing rules)."""
    extra = np.zeros(len(ROUTES))
    mine, endpoint = tokens(query.text), query.metadata["endpoint"]
    weights = shown.weights or [1.0] * len(shown.records)
    for rec, wt in zip(shown.records, weights):
        extra[ROUTES.index(rec["route"])] += wt * (jaccard(mine, frozenset(rec["salient"]))
                                                   + (rec["endpoint"] == endpoint))
    for d in shown.rules:
        if _fires(tuple(d), query):
            extra[ROUTES.index(d[2])] += 1.0
    for route, wt in shown.extra.get("votes", {}).items():  # a method's own votes (e.g. experiences)
        extra[ROUTES.index(route)] += wt
    return extra


def prior_route(scenario, spec, query, ctx, base_route: str) -> str:
    """The route with a prior method's votes added to the base policy's neighbour weights."""
    t = query.episode
    weights = np.zeros(len(ROUTES))
    if ctx.prior.extra.get("policy") in BY_NAME:  # a method that picks the policy itself (a skill's, a tool policy's)
        spec = BY_NAME[ctx.prior.extra["policy"]]
    if not spec.retrieves_nothing:
        vote = route_live(spec, ctx.memory, scenario.query_dict(query), scenario.similarity, scenario.sim_row(t))
        for ep in vote.neighbours:
            weights[ROUTES.index(scenario.ticket(ep)["gold_route"])] += scenario.sim_row(t)[ep]
    extra = prior_votes(ctx.prior, query)
    total = weights + extra
    if total.max() <= 0:
        return DEFAULT_ROUTE
    best = np.flatnonzero(total >= total.max() - 1e-9)
    base = ROUTES.index(base_route)
    return ROUTES[base] if base in best else ROUTES[int(best[0])]


def _fires(directive: tuple, query) -> bool:
    kind, what = directive[0], directive[1]
    return query.metadata["endpoint"] == what if kind == "endpoint" else what in tokens(query.text)
