"""The session's state is declared once (`Session.PARTS`): save, load, checkpoint and
rollback are derived from it, so a new piece of state is one entry there."""

from __future__ import annotations

import json

from engine.session import Part, Session, SessionConfig
from engine.store.session_schema import SessionDoc
from scenarios import make_scenario


class TallySession(Session):
    """A session with one more piece of state than the engine's: a running tally of
    draws from the session's generator, changed by every step."""

    PARTS = (*Session.PARTS, Part("tally", lambda s: list(s.tally), lambda s, v: setattr(s, "tally", list(v))))

    def __init__(self, *args, **kw):
        # Before the engine's __init__: the session takes its first timeline
        # checkpoint there, and a checkpoint reads every part.
        self.tally: list[int] = []
        super().__init__(*args, **kw)

    def _step(self):
        out = super()._step()
        self.tally.append(int(self.rng.integers(0, 1000)))  # state that moves with every episode
        return out


def tally_session(seed: int = 4) -> TallySession:
    config = SessionConfig("synthetic", seed, "ts+reflection")
    return TallySession(config, make_scenario("synthetic", seed, {}))


def test_one_more_part_is_enough_for_an_exact_resume():
    straight = tally_session()
    straight.run(until=60)
    s = tally_session()
    s.run(until=23)
    saved = json.loads(json.dumps(s.to_dict()))
    assert saved["tally"] == s.tally and len(saved["tally"]) == 23
    again = TallySession.from_dict(saved, make_scenario)
    assert again.tally == s.tally
    again.run(until=60)
    assert again.tally == straight.tally and again.history == straight.history


def test_one_more_part_is_enough_for_an_exact_rollback():
    s = tally_session()
    s.run(until=19)
    before = json.dumps(s.to_dict(), sort_keys=True)
    cp = s._checkpoint()
    assert cp["tally"] == s.tally and cp["tally"] is not s.tally  # a copy, not the live list
    s.step()
    s.step()
    assert len(s.tally) == 21 and json.dumps(s.to_dict(), sort_keys=True) != before
    s._rollback(cp)
    assert json.dumps(s.to_dict(), sort_keys=True) == before


def test_a_part_left_out_of_the_parts_is_not_saved():
    """The converse: without its entry the tally is neither saved nor rolled back, which
    is what the declaration exists to prevent."""

    class Forgetful(TallySession):
        PARTS = Session.PARTS

    s = Forgetful(SessionConfig("synthetic", 4, "ts"), make_scenario("synthetic", 4, {}))
    s.run(until=5)
    assert "tally" not in s.to_dict() and "tally" not in s._checkpoint()


def test_every_part_is_a_field_of_the_save_schema():
    """A part the schema does not know would be refused on load: the two lists agree."""
    keys = [p.key for p in Session.PARTS]
    assert len(set(keys)) == len(keys)
    assert {"config", *keys} == set(SessionDoc.model_fields)
