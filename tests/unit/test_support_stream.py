"""The support stream (spec §1–§4) and its text similarity (spec §5)."""

from __future__ import annotations

import hashlib
import io
import json
import random

import numpy as np
import pytest

from scenarios.support.bank import AMBIGUOUS, ENDPOINT_ROUTE, MIX, P_SIGNAL, ROUTES
from scenarios.support.stream import export_jsonl, generate, regime_of
from scenarios.support.text import jaccard, similarity_matrix, stream_similarity, tokens

SEEDS = (42, 123, 456, 789, 1024)
KEYS = ["episode", "regime", "endpoint", "text", "gold_route", "has_route_signal"]


def test_seed_42_reproduces_the_canonical_stream():
    digest = hashlib.sha256(json.dumps(generate(42)).encode()).hexdigest()
    assert digest[:16] == "3fa4a8c64b334ca4"


def test_tickets_have_the_canonical_keys_in_order_and_plain_python_types():
    for t, ticket in enumerate(generate(123)):
        assert list(ticket) == KEYS
        assert type(ticket["episode"]) is int and ticket["episode"] == t
        assert type(ticket["regime"]) is int
        assert type(ticket["endpoint"]) is str and type(ticket["text"]) is str
        assert type(ticket["gold_route"]) is str and type(ticket["has_route_signal"]) is bool


def test_generate_returns_copies_the_caller_may_mutate():
    first = generate(42)
    first[0]["text"] = "changed"
    assert generate(42)[0]["text"] != "changed"


def test_different_seeds_give_different_streams():
    assert generate(42) != generate(123)


@pytest.mark.parametrize("t, regime", [(0, 0), (299, 0), (300, 1), (599, 1), (600, 2), (899, 2), (900, 3), (1199, 3)])
def test_regime_boundaries_are_half_open(t, regime):
    assert regime_of(t) == regime


def test_stream_regimes_follow_the_boundaries():
    assert [t["regime"] for t in generate(42)] == [regime_of(t) for t in range(1200)]


def _pooled(seeds=SEEDS):
    return [t for s in seeds for t in generate(s)]


def test_backend_error_share_per_regime_matches_the_mix():
    tickets = _pooled()
    for g in range(4):
        in_g = [t for t in tickets if t["regime"] == g]
        share = sum(t["gold_route"] == "backend_error" for t in in_g) / len(in_g)
        assert share == pytest.approx(MIX[g][ROUTES.index("backend_error")], abs=0.04)


def test_route_signal_share_per_regime_matches_the_spec():
    tickets = _pooled()
    for g in range(4):
        in_g = [t for t in tickets if t["regime"] == g]
        share = sum(t["has_route_signal"] for t in in_g) / len(in_g)
        assert share == pytest.approx(P_SIGNAL[g], abs=0.04)


def test_endpoints_carry_the_route_only_in_regime_3():
    tickets = _pooled()
    for g in range(4):
        in_g = [t for t in tickets if t["regime"] == g]
        agree = sum(ENDPOINT_ROUTE[t["endpoint"]] == t["gold_route"] for t in in_g) / len(in_g)
        if g == 3:
            assert agree == pytest.approx(0.96 + 0.04 / 8, abs=0.02)
        else:
            assert agree == pytest.approx(1 / 8, abs=0.04)


def test_regime_3_texts_are_the_same_for_every_route():
    bodies_by_route: dict[str, set[str]] = {}
    for t in _pooled():
        if t["regime"] == 3:
            body = next(b for b in AMBIGUOUS if t["text"] == b or t["text"].startswith(b + " "))
            bodies_by_route.setdefault(t["gold_route"], set()).add(body)
    assert set(bodies_by_route) == set(ROUTES)
    assert all(bodies == set(AMBIGUOUS) for bodies in bodies_by_route.values())


def test_export_jsonl_writes_one_canonical_line_per_ticket(tmp_path):
    path = tmp_path / "s42.jsonl"
    export_jsonl(42, path)
    lines = path.read_text().splitlines()
    assert [json.loads(line) for line in lines] == generate(42)
    buf = io.StringIO()
    export_jsonl(42, buf)
    assert buf.getvalue() == path.read_text()


def test_tokens_drop_stop_words_and_session_ids():
    text = "session_id sess_1b2c3d not found when resuming thread, conversation state expired"
    assert tokens(text) == {"session_id", "found", "resuming", "thread", "conversation", "state", "expired"}


def test_tokens_keep_digits_and_underscores_and_lowercase():
    assert tokens("HTTP 429 Too Many; retry-after 30s OPENAI_API_KEY") == {
        "http", "429", "too", "many", "retry", "30s", "openai_api_key"}


def test_jaccard_is_intersection_over_union_and_zero_for_empty_sets():
    assert jaccard(frozenset("ab"), frozenset("bc")) == pytest.approx(1 / 3)
    assert jaccard(frozenset(), frozenset()) == 0.0


def test_similarity_matrix_equals_pairwise_jaccard():
    texts = [t["text"] for t in generate(456)]
    s = stream_similarity(456)
    assert s.shape == (1200, 1200)
    rnd = random.Random(0)
    for _ in range(500):
        i, j = rnd.randrange(1200), rnd.randrange(1200)
        assert s[i, j] == jaccard(tokens(texts[i]), tokens(texts[j]))


def test_similarity_matrix_handles_texts_without_tokens():
    s = similarity_matrix(["the a of", "429 queue", "the"])
    assert s[0, 0] == 0.0 and s[0, 2] == 0.0 and s[1, 1] == 1.0


def test_stream_similarity_is_shared_and_read_only():
    s = stream_similarity(42)
    assert stream_similarity(42) is s
    with pytest.raises(ValueError):
        s[0, 0] = 0.5
    assert np.allclose(s, s.T)


def test_similarity_rows_read_one_at_a_time_are_the_matrix_rows_bit_for_bit():
    from scenarios.support import text

    text._MATRICES.pop(77, None)
    rows = text.SimilarityRows(77)
    alone = {t: rows[t] for t in (0, 5, 640, 1199)}
    assert 77 not in text._MATRICES  # a few rows do not build the matrix
    for t in range(text.SimilarityRows.WHOLE_AFTER):
        rows[t]
    s = stream_similarity(77)
    assert rows[900] is not None and 77 in text._MATRICES  # many rows: the shared matrix
    for t, row in alone.items():
        assert row.tobytes() == s[t].tobytes()
