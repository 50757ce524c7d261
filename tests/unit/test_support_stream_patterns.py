"""Distillation from the stream's arrays equals `patterns.distill` of the memory it
stands for (a tier holding exactly tickets first..last), at every window."""

import pytest

from engine.memory import MemoryStore
from scenarios.support import patterns
from scenarios.support.policies import episodic_record
from scenarios.support.stream import tickets
from scenarios.support.stream_patterns import StreamPatterns


@pytest.mark.parametrize("seed", [42, 7])
def test_stream_distillation_equals_the_memory_distillation(seed):
    stream = tickets(seed)
    memory = MemoryStore(cap_per_tier=len(stream))
    fast = StreamPatterns(seed)
    found_any = 0
    for t, ticket in enumerate(stream):
        content, meta = episodic_record(ticket)
        memory.write("episodic", content, meta, 1.0, episode=t)
        if t % 10 == 9 or t < 12:
            expected = patterns.distill(memory)
            assert fast.distill(0, t) == expected, t
            found_any += len(expected)
    assert found_any > 100  # both find patterns: the equality is not of empty lists
    # a tier that starts later (its first tickets evicted)
    assert fast.distill(500, 899) == patterns.distill(_memory_of(stream[500:900]))


def _memory_of(span):
    memory = MemoryStore(cap_per_tier=len(span))
    for ticket in span:
        content, meta = episodic_record(ticket)
        memory.write("episodic", content, meta, 1.0, episode=ticket["episode"])
    return memory
