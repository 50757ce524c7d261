"""Code policies: escape attempts are refused with a reason, good policies run (in the sandbox only)."""

from __future__ import annotations

import textwrap

import pytest

from engine.sandbox.codepolicy import (CodePolicy, CodePolicyError, check_source, entry_rows, review_code_policy,
                               smoke_test, source_hash)
from engine.sandbox.codeworker import CodeWorker
from engine.errors import AELError

ENTRIES = [
    {"id": f"e{i}", "tier": "episodic" if i < 6 else "semantic", "content": f"note {i}",
     "metadata": {"regime": "bull" if i % 2 else "bear", "ticker": "AAPL"}, "quality": i / 10, "episode": i}
    for i in range(8)
]
QUERY = {"regime": "bull", "ticker": "AAPL"}

REGIME_FILTERED = '''
def retrieve(entries, query):
    """RegimeFilteredRetrieval: entries of the query's regime, best quality first."""
    regime = query.get("regime")
    same = [e for e in entries if e["metadata"].get("regime") == regime]
    return sorted(same, key=lambda e: (e["quality"], e["episode"]), reverse=True)[:3]
'''

PER_TIER = '''
def retrieve(entries, query):
    picked = []
    counts = {}
    for e in sorted(entries, key=lambda e: e["episode"], reverse=True):
        tier = e["tier"]
        if counts.get(tier, 0) >= 2:
            continue
        counts[tier] = counts.get(tier, 0) + 1
        score = e["quality"] ** 2 + (0.1 if e["metadata"].get("ticker") == query.get("ticker") else 0)
        if score > 0.05:
            picked.append(e)
    return picked
'''


@pytest.fixture(scope="module")
def worker():
    w = CodeWorker()
    yield w
    w.close()


def run(worker: CodeWorker, source: str, entries=ENTRIES, query=QUERY) -> list[str]:
    """The ids the policy picks, run in the sandboxed worker."""
    return [e.id for e in worker.call(source_hash(source), source, entry_rows(entries), query, 5.0)]


def body(code: str) -> str:
    """`code` as the body of `def retrieve(entries, query)`."""
    return "def retrieve(entries, query):\n" + textwrap.indent(textwrap.dedent(code).strip("\n"), "    ") + "\n"


# Each escape attempt, and a fragment the refusal must contain.
REFUSED_BY_THE_AST = {
    "import": ("import os\n" + body("return []"), "imports are not allowed"),
    "import inside": (body("import os\nreturn []"), "imports are not allowed"),
    "from import": (body("from os import system\nreturn []"), "imports are not allowed"),
    "__import__": (body("os = __import__('os')\nreturn []"), "names starting with '_'"),
    "class walk": (body("return ().__class__.__bases__[0].__subclasses__()"), "attributes starting with '_'"),
    "getattr": (body("return getattr(entries, 'copy')()"), "getattr is not allowed"),
    "getattr by pieces": (body("name = '_' + '_class_' + '_'\nreturn [getattr(entries, name)]"),
                          "getattr is not allowed"),
    "dunder string": (body("key = '__class__'\nreturn []"), "strings containing '__'"),
    "str.format attribute read": (body("return ['{0.__class__}'.format(entries)]"), "strings containing '__'"),
    "format method": (body("return ['{0.real}'.format(1)]"), ".format is not an allowed method"),
    "open": (body("return open('/etc/passwd').readlines()"), "open is not allowed"),
    "exec": (body("exec('import os')\nreturn []"), "exec is not allowed"),
    "eval": (body("return eval('entries')"), "eval is not allowed"),
    "compile": (body("code = compile('1', 'x', 'eval')\nreturn []"), "compile is not allowed"),
    "globals": (body("return list(globals())"), "globals is not allowed"),
    "locals": (body("return list(locals())"), "locals is not allowed"),
    "vars": (body("return list(vars())"), "vars is not allowed"),
    "breakpoint": (body("breakpoint()\nreturn []"), "breakpoint is not allowed"),
    "input": (body("input()\nreturn []"), "input is not allowed"),
    "print": (body("print(entries)\nreturn []"), "print is not allowed"),
    "type": (body("return type(entries).mro()"), "type is not allowed"),
    "fullwidth exec": (body("\uff45xec('1')\nreturn []"), "exec is not allowed"),  # NFKC-normalised to exec
    "while true": (body("while True:\n    pass\nreturn []"), "while loops are not allowed"),
    "f-string": (body("return [f'{entries.__class__}']"), "f-strings are not allowed"),
    "plain f-string": (body("return [f'{entries}']"), "f-strings are not allowed"),
    "decorator": ("@staticmethod\ndef retrieve(entries, query):\n    return []\n", "decorators are not allowed"),
    "global": (body("global x\nreturn []"), "global is not allowed"),
    "nested def": (body("def inner():\n    return entries\nreturn []"), "nested functions"),
    "nonlocal": (body("def inner():\n    nonlocal query\nreturn []"), "nested functions are not allowed"),
    "bitwise": (body("return [e for e in entries if e['episode'] & 1]"), "bitwise operators"),
    "class": (body("class X:\n    pass\nreturn []"), "classes are not allowed"),
    "try": (body("try:\n    pass\nexcept Exception as e:\n    pass\nreturn []"), "try/except"),
    "with": (body("with entries:\n    pass\nreturn []"), "with is not allowed"),
    "raise": (body("raise SystemExit(1)"), "raise is not allowed"),
    "assert": (body("assert entries\nreturn []"), "assert is not allowed"),
    "del": (body("del entries[0]\nreturn []"), "del is not allowed"),
    "walrus": (body("return [y for e in entries if (y := e)]"), "walrus"),
    "yield": (body("yield entries"), "generators are not allowed"),
    "async def": ("async def retrieve(entries, query):\n    return []\n", "async code is not allowed"),
    "lambda default": (body("f = lambda x=entries: x\nreturn []"), "lambdas take plain arguments only"),
    "lambda default import": (body("f = lambda x=__import__('os'): x\nreturn []"), "lambdas take plain arguments only"),
    "recursion": (body("return retrieve(entries, query)"), "may not refer to itself"),
    "calling a lambda": (body("f = lambda: entries\nreturn f()"), "calling f() is not allowed"),
    "calling a call": (body("return sorted(entries)[0].get('x')()"), "only builtins and methods"),
    "generator frame": (body("g = (e for e in entries)\nreturn [g.gi_frame]"), ".gi_frame is not an allowed"),
    "mro via method": (body("return str.mro()"), ".mro is not an allowed method"),
    "star args": (body("return sorted(*entries)"), "star-unpacking"),
    "kwargs unpacking": (body("return sorted(entries, **query)"), "**keyword unpacking"),
    "attribute store": (body("entries.x = 1\nreturn []"), "assigning to attributes"),
    "huge power": (body("return list(range(10 ** 12))"), "constant exponent"),
    "variable power": (body("n = len(entries)\nreturn [n ** n]"), "constant exponent"),
    "shift bomb": (body("return [1 << 1000000]"), "bit shifts are not allowed"),
    "big constant": (body("return list(range(100000000))"), "numbers beyond"),
    "bytes": (body("return [b'x']"), "bytes constants are not allowed"),
    "private name": (body("_hidden = entries\nreturn _hidden"), "names starting with '_'"),
    "two functions": (body("return []") + body("return []").replace("retrieve", "other"), "exactly one function"),
    "wrong name": ("def fetch(entries, query):\n    return []\n", "exactly one function"),
    "wrong arguments": ("def retrieve(entries):\n    return []\n", "exactly two plain arguments"),
    "default argument": ("def retrieve(entries, query=[]):\n    return []\n", "exactly two plain arguments"),
    "default argument import": ("def retrieve(entries, query=__import__('os')):\n    return []\n",
                                "names starting with '_'"),
    "annotation": ("def retrieve(entries, query: dict):\n    return []\n", "exactly two plain arguments"),
    "annotation that opens a file": ("def retrieve(entries, query: open('/etc/passwd')):\n    return []\n",
                                     "open is not allowed"),
    "module code": ("x = 1\n" + body("return []"), "exactly one function"),
    "syntax error": (body("return ["), "syntax error"),
    "too long": (body("\n".join(f"x{i} = {i}" for i in range(90)) + "\nreturn []"), "longer than 80 lines"),
    "too big": (body("return []") + "#" * 5000, "longer than 4096 bytes"),
    "empty": ("", "the source is empty"),
    # past the allow-list, RestrictedPython is the second static check
    "augmented item assignment": (body("c = {'a': 0}\nc['a'] += 1\nreturn []"),
                                  "line 3: Augmented assignment of object items and slices is not allowed "
                                  "(RestrictedPython)"),
    # a tree the filter cannot walk entirely is refused, never waved through
    "nested too deep": (body("x = " + "[" * 60 + "1" + "]" * 60 + "\nreturn []"), "nested more than 50 levels"),
    "too many nodes": (body("x = [" + ",".join(["1"] * 1600) + "]\nreturn []"), "more than 1500 syntax nodes"),
}


@pytest.mark.parametrize("attempt", sorted(REFUSED_BY_THE_AST))
def test_an_escape_attempt_is_refused_with_a_reason(attempt):
    source, reason = REFUSED_BY_THE_AST[attempt]
    with pytest.raises(CodePolicyError) as caught:
        check_source(source, "sneaky")
    message = str(caught.value)
    assert message.startswith("code policy 'sneaky' refused:")
    assert reason in message
    assert "\n" not in message


def test_a_refusal_is_an_ael_error_naming_the_line():
    with pytest.raises(AELError, match="line 3: imports are not allowed"):
        check_source(body("x = 1\nimport os\nreturn []"))


# These pass the AST gate; the smoke test in a limited child process stops them.
REFUSED_BY_THE_SMOKE_TEST = {
    "memory bomb": (body("x = [0] * 1000000 * 1000\nreturn []"), "memory limit"),
    "string bomb": (body("s = 'a' * 1000000\nt = s * 1000000\nreturn []"), "memory limit"),
    "endless loop": (body("n = 1000000\nfor i in range(n * n):\n    pass\nreturn []"), "did not finish within"),
    "not a list": (body("return 'everything'"), "must return a list"),
    "invented entries": (body("return [{'id': 'forged'}]"), "taken from `entries`"),
    "copied entries": (body("return [dict(e) for e in entries]"), "taken from `entries`"),
    "crash": (body("return [entries[0]['missing']]"), "KeyError: 'missing'"),
    "trap for one regime": (body("if query.get('regime') == 'bear':\n    return 'gotcha'\nreturn []"),
                            "must return a list"),
    "blow-up with memory size": (body("return [e for e in entries for f in entries for g in entries "
                                      "for h in entries if e['quality'] > 2]"), "did not finish within"),
}


@pytest.mark.parametrize("attempt", sorted(REFUSED_BY_THE_SMOKE_TEST))
def test_what_passes_the_ast_but_misbehaves_is_refused_by_the_smoke_test(attempt):
    source, reason = REFUSED_BY_THE_SMOKE_TEST[attempt]
    check_source(source)  # the static filter alone lets it through
    with pytest.raises(CodePolicyError) as caught:
        smoke_test(source, ENTRIES, QUERY, name="bomb", deadline_s=0.5)
    assert reason in str(caught.value)


def test_a_regime_filtered_policy_is_accepted_and_runs_in_the_worker(worker):
    review_code_policy("regime_filtered", REGIME_FILTERED, ENTRIES, QUERY)
    assert run(worker, REGIME_FILTERED) == ["e7", "e5", "e3"]


def test_a_per_tier_policy_with_loops_and_counters_is_accepted(worker):
    review_code_policy("per_tier", PER_TIER, ENTRIES, QUERY)
    assert run(worker, PER_TIER) == ["e7", "e6", "e5", "e4"]


def test_the_smoke_test_feeds_inputs_up_to_the_memory_cap():
    result = smoke_test(REGIME_FILTERED, ENTRIES, QUERY, scale_to=1500)
    assert result.sample_size == 8 and result.scaled_size == 1496
    assert result.returned == (3, 3)


def test_a_policy_cannot_change_the_entries_it_reads(worker):
    source = body("for e in entries:\n    e['quality'] = 99\nreturn entries")
    with pytest.raises(CodePolicyError, match="mappingproxy is read-only"):
        run(worker, source)
    nested = body("for e in entries:\n    e['metadata'].setdefault('x', 1)\nreturn entries")
    with pytest.raises(CodePolicyError, match="AttributeError"):
        run(worker, nested)
    assert run(worker, REGIME_FILTERED) == ["e7", "e5", "e3"]  # and the next call sees what it was given


def test_a_policy_that_fails_at_run_time_raises_a_clear_error(worker):
    with pytest.raises(CodePolicyError, match=r"KeyError: 'sector'"):
        run(worker, body("return [e for e in entries if e['metadata']['sector'] == 'x']"))


def test_building_a_code_policy_runs_none_of_it():
    # a vetted policy is data: no function object, nothing compiled into this process
    policy = CodePolicy("probe", body("return []"))
    assert not any(callable(v) for v in vars(policy).values())
    assert policy.sha256 == source_hash(policy.source)


def test_a_saved_code_policy_round_trips_and_is_checked_again_on_load():
    policy = CodePolicy("regime_filtered", REGIME_FILTERED, "regime first")
    assert CodePolicy.from_dict(policy.to_dict()) == policy
    tampered = dict(policy.to_dict(), source=body("import os\nreturn []"))
    with pytest.raises(CodePolicyError, match="imports are not allowed"):
        CodePolicy.from_dict(tampered)


@pytest.mark.parametrize("raw", [None, {"name": "x"}, {"kind": "code", "name": "bad name!", "source": "x"}])
def test_a_malformed_saved_code_policy_is_refused(raw):
    with pytest.raises(CodePolicyError):
        CodePolicy.from_dict(raw)


def test_sample_data_must_be_plain_json():
    with pytest.raises(CodePolicyError, match="plain JSON data"):
        smoke_test(REGIME_FILTERED, [{"id": "e", "when": object()}], QUERY)
