"""The lab's results are computed once per state (ael_tui/lab/results_table.py, `KeptResults`):
asking again at the same episode runs no comparison again; a step, a decision, a rewind does."""

from ael_tui.lab import results_table
from ael_tui.lab.results_table import KeptResults


def test_the_same_state_reuses_the_table_and_a_new_one_computes_it(session_factory, monkeypatch):
    session = session_factory()
    session.run(until=session.warmup + 2)
    computed = []
    real = results_table.compute_results
    monkeypatch.setattr(results_table, "compute_results", lambda s: computed.append(s.t) or real(s))
    kept = KeptResults()
    first = kept(session, version=1)
    assert kept(session, version=1) is first and computed == [session.t]
    assert kept(session, version=2) is not first  # a decision or a rewind at the same episode
    session.step()
    assert kept(session, version=3).title != first.title and len(computed) == 3
    other = session_factory(seed=8)
    other.run(until=session.t)
    kept(other, version=3)  # another session (a load) at the same episode and version
    assert len(computed) == 4
