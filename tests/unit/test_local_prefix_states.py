"""The local model's kept prompt prefixes (`local_child.PrefixStates`) without the model: which
tokens are a prompt's prefix, that a state is reused only for the exact same prefix tokens,
that what is kept stays bounded (a few prefixes, a byte budget, least recently used dropped
first), and that a state that cannot be restored, or a failure while evaluating a prefix,
leaves the model reset for a whole evaluation. The answers themselves are compared with the
real model in tests/model/test_local_model.py."""

from __future__ import annotations

import pytest

from engine.llm.providers import local_child
from engine.llm.providers.local_child import PrefixStates, prefix_length, split_points

END, NL = 2, 3  # the stand-in model's end-of-turn token, and a token holding a line break


class StandIn:
    """What `PrefixStates` uses of llama_cpp.Llama: its context is the list of tokens evaluated."""

    def __init__(self) -> None:
        self.context: list[int] = []
        self.input_ids = [0] * 64
        self.n_tokens = 0
        self.evaluated: list[list[int]] = []
        self.fail_eval = False

    def token_eos(self) -> int:
        return END

    def detokenize(self, tokens) -> bytes:
        return b"".join(b"x\n" if t == NL else b"x" for t in tokens)

    def reset(self) -> None:
        self.n_tokens = 0
        self.context = []

    def eval(self, tokens) -> None:
        if self.fail_eval:
            raise RuntimeError("llama_decode returned -1")
        self.evaluated.append(list(tokens))
        self.context += list(tokens)
        self.n_tokens += len(tokens)


@pytest.fixture
def model(monkeypatch):
    """A stand-in model whose state is its context's tokens; `broken` states fail to restore."""
    llama, broken = StandIn(), set()

    def read_state(m):
        return bytes(m.context)

    def write_state(m, blob):
        m.reset()
        if blob in broken:
            return False
        m.context = list(blob)
        return True

    monkeypatch.setattr(local_child, "_read_state", read_state)
    monkeypatch.setattr(local_child, "_write_state", write_state)
    return llama, broken


def test_a_prompt_s_prefix_is_its_first_turn_and_only_when_something_follows():
    assert prefix_length([1, 5, 6, END, 9, 1, 7], END) == 4
    assert prefix_length([1, 5, 6, END], END) == 0  # nothing after it: nothing to reuse it for
    assert prefix_length([1, 5, 6, 7], END) == 0
    assert prefix_length([], END) == 0


def test_a_prefix_is_cut_after_its_last_line_break_and_at_its_end():
    def newline(t):
        return t == NL

    assert split_points([1, 5, NL, 6, NL, 7, END, 9], END, newline) == [5, 7]
    assert split_points([1, 5, 6, END, NL, 9], END, newline) == [4]  # a break after the turn is not in it
    assert split_points([1, 5, NL, END], END, newline) == []


def test_a_prompt_whose_last_line_changed_reuses_the_part_before_it(model):
    llama, _ = model
    states = PrefixStates()
    assert states.prime(llama, [1, 5, NL, 6, END, 9]) == 0
    assert llama.evaluated == [[1, 5, NL], [6, END]] and len(states) == 2  # each piece alone, each kept
    llama.evaluated.clear()
    assert states.prime(llama, [1, 5, NL, 7, END, 9]) == 3  # another schema: the lines before it restored
    assert llama.evaluated == [[7, END]] and llama.context == [1, 5, NL, 7, END] and llama.n_tokens == 5
    llama.evaluated.clear()
    assert states.prime(llama, [1, 5, NL, 6, END, 8]) == 5 and llama.evaluated == []


def test_the_prefix_is_evaluated_alone_kept_and_restored_only_for_the_same_tokens(model):
    llama, _ = model
    states = PrefixStates()
    assert states.prime(llama, [1, 5, END, 9, 9]) == 0  # evaluated now, alone, from an empty context
    assert llama.evaluated == [[1, 5, END]] and llama.n_tokens == 3
    llama.eval([9, 9, 4])  # the call's rest and its answer fill the context
    assert states.prime(llama, [1, 5, END, 8]) == 3  # restored: exactly the prefix, nothing after it
    assert llama.context == [1, 5, END] and llama.n_tokens == 3 and list(llama.input_ids[:3]) == [1, 5, END]
    assert states.prime(llama, [1, 6, END, 8]) == 0  # one token differs: another prefix
    assert len(states) == 2


def test_what_is_kept_is_bounded_in_prefixes_and_bytes_least_recently_used_first(model):
    llama, _ = model
    states = PrefixStates(limit=2, max_bytes=7)
    for p in ([1, END], [3, END], [1, END]):  # the first used again: the second is the oldest
        states.prime(llama, [*p, 9])
    states.prime(llama, [4, END, 9])
    assert len(states) == 2 and states.prime(llama, [1, END, 9]) == 2 and states.prime(llama, [3, END, 9]) == 0
    states.prime(llama, [5, 5, 5, 5, 5, END, 9])  # six bytes: the others go to stay within seven
    assert len(states) == 1 and states.held_bytes() == 6
    states.prime(llama, [6] * 8 + [END, 9])  # more than the budget alone: evaluated, never kept
    assert states.held_bytes() == 6 and states.prime(llama, [6] * 8 + [END, 9]) == 0
    assert PrefixStates(limit=0).prime(llama, [1, END, 9]) == 0 and llama.n_tokens == 0  # none kept: reset


def test_a_state_that_cannot_be_restored_is_dropped_and_the_prefix_evaluated_again(model):
    llama, broken = model
    states = PrefixStates()
    states.prime(llama, [1, 5, END, 9])
    broken.add(bytes([1, 5, END]))
    llama.evaluated.clear()
    assert states.prime(llama, [1, 5, END, 8]) == 0
    assert llama.evaluated == [[1, 5, END]] and llama.context == [1, 5, END]  # from an empty context


def test_a_failure_while_evaluating_the_prefix_leaves_the_model_reset_for_the_whole_prompt(model):
    llama, _ = model
    states = PrefixStates()
    llama.fail_eval = True
    assert states.prime(llama, [1, 5, END, 9]) == 0
    assert llama.n_tokens == 0 and llama.context == [] and len(states) == 0
