"""The sandbox's other contracts: allocate (HyperAgent) and plan (planners) vetted,
smoke-tested and run in the worker like retrieval policies, answers checked here."""

from __future__ import annotations

import pytest

from engine.sandbox.contracts import CONTRACTS, contract
from engine.sandbox.codearms import CodeArms, run_function
from engine.sandbox.codepolicy import check_source, smoke_test_function
from engine.sandbox.rules import CodePolicyError

ALLOCATE = "def allocate(features):\n    return [-f.get('rsi', 0) for f in features]\n"
PLAN = ("def plan(scores, weights, tools):\n"
        "    xs = [s * w for s, w in zip(scores, weights) if s is not None]\n"
        "    return 3 * sum(xs) / len(xs) if xs else 0.0\n")


@pytest.fixture
def arms():
    a = CodeArms()
    yield a
    a.close()


def test_each_contract_declares_its_function_and_its_checks_in_one_place():
    assert set(CONTRACTS) == {"retrieve", "allocate", "plan"}
    assert contract("plan").signature == "def plan(scores, weights, tools)"
    with pytest.raises(CodePolicyError, match="unknown code contract"):
        contract("nope")


def test_allocation_code_runs_in_the_worker_and_answers_one_score_per_ticker(arms):
    assert smoke_test_function(ALLOCATE, "allocate") == len(contract("allocate").samples())
    assert run_function(arms, "allocate", ALLOCATE, ([{"rsi": 1.0}, {"rsi": -2.0}],)) == [-1.0, 2.0]
    assert arms.worker.pid is not None and arms.worker.pid != __import__("os").getpid()


def test_a_planner_view_is_clipped_to_minus_one_one(arms):
    smoke_test_function(PLAN, "plan")
    assert run_function(arms, "plan", PLAN, ([0.5, None], [1.0, 1.0], ["a", "b"])) == 1.0


@pytest.mark.parametrize("source, why", [
    ("def allocate(features):\n    return [float('nan') for f in features]\n", "finite"),
    ("def allocate(features):\n    return [1]\n", "one per ticker"),
    ("def allocate(features):\n    return {'a': 1}\n", "number or a list"),
    ("def allocate(features):\n    return [[1] for f in features]\n", "number or a list"),
    ("def allocate(features):\n    return [1000000 * 1000000 for f in features]\n", "at most"),
    ("def allocate(features):\n    while True:\n        pass\n", "while loops"),
    ("def allocate(x, y):\n    return []\n", "one plain argument"),
    ("def retrieve(entries, query):\n    return []\n", "exactly one function `def allocate(features)`"),
    ("def allocate(features):\n    return allocate(features)\n", "may not refer to itself"),
    ("def allocate(features):\n    n = 0\n    for i in range(1000000):\n        for j in range(1000000):\n"
     "            n += 1\n    return [n for f in features]\n", "did not finish"),
])
def test_code_that_breaks_the_allocation_contract_is_refused_with_a_reason(source, why):
    with pytest.raises(CodePolicyError) as caught:
        smoke_test_function(source, "allocate", deadline_s=0.5)
    assert why in str(caught.value)


def test_the_static_filter_takes_the_contract_name_and_arity():
    check_source(PLAN, "p", "plan")
    with pytest.raises(CodePolicyError, match="three plain arguments"):
        check_source("def plan(scores, weights):\n    return 0\n", "p", "plan")
