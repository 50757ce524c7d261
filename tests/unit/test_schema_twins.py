"""Each pydantic model of a save beside the runtime dataclass it mirrors: the same fields.

A field added to a dataclass and not to its model is refused by every save that holds
it (the models are strict); one added to the model alone is never written. Where the
two differ on purpose, the difference is declared here with its reason.
"""

from __future__ import annotations

import dataclasses

import pytest

from engine.approvals import ApprovalQueue, AuditEntry, Proposal, StandingRule
from engine.bandits import Arm
from engine.llm.cassette_schema import ReplyDoc
from engine.llm.ledger import UsageRecord
from engine.llm.request import Reply
from engine.llm.setup import LLMConfig
from engine.memory import MemoryEntry
from engine.prior import saved_state as prior
from engine.prior.generation_search import Generation, Search
from engine.prior.skill_book import Experience, Skill, SkillBook
from engine.prior.tool_population import Mutation, Population, ToolPolicy
from engine.reflection import Reflection
from engine.reflection_gate import DeclaredReflector
from engine.session import SessionConfig
from engine.store import session_schema as doc
from engine.timetravel import Tape
from scenarios.portfolio.episode import PortfolioState
from scenarios.portfolio.reflector import PortfolioReflector
from scenarios.portfolio.saved_metadata import Portfolio
from scenarios.news.reflector import NewsReflector
from scenarios.stream.reflector import StreamReflector
from scenarios.support.reflector import SupportReflector

# (model, dataclass, fields only the model has, fields only the dataclass has): why they differ
TWINS = [
    (doc.Config, SessionConfig, set(), set()),
    (doc.LLMSection, LLMConfig, set(), set()),
    (doc.Arm, Arm, {"last_sample"}, set()),  # older saves carry it; it is read and dropped
    (doc.Entry, MemoryEntry, set(), set()),
    (doc.Proposal, Proposal, set(), set()),
    (doc.Audit, AuditEntry, set(), set()),
    (doc.StandingRule, StandingRule, set(), set()),
    (doc.Queue, ApprovalQueue, set(), set()),
    (doc.Reflection, Reflection, set(), set()),
    (doc.UsageRecord, UsageRecord, set(), set()),
    (doc.Tape, Tape, set(), {"_by_episode"}),  # an index rebuilt from the records
    (ReplyDoc, Reply, set(), set()),
    (Portfolio, PortfolioState, set(), set()),
    (prior.ToolPolicyState, ToolPolicy, set(), set()),
    (prior.MutationState, Mutation, set(), set()),
    (prior.PopulationState, Population, set(), {"config"}),  # the method's settings, saved with the method
    (prior.SkillState, Skill, set(), set()),
    (prior.ExperienceState, Experience, set(), set()),
    (prior.SkillBookState, SkillBook, set(), {"config"}),
    (prior.GenerationState, Generation, set(), set()),
    (prior.SearchState, Search, set(), {"config"}),
]


@pytest.mark.parametrize("model, runtime, model_only, runtime_only", TWINS,
                         ids=[f"{m.__name__}~{d.__name__}" for m, d, _, _ in TWINS])
def test_a_saved_model_has_the_fields_of_its_runtime_twin(model, runtime, model_only, runtime_only):
    fields = {f.name for f in dataclasses.fields(runtime)}
    saved = set(model.model_fields)
    assert saved - fields == model_only, f"{model.__name__} has fields {runtime.__name__} lacks"
    assert fields - saved == runtime_only, f"{runtime.__name__} has fields {model.__name__} lacks"


@pytest.mark.parametrize("reflector", [SupportReflector, NewsReflector, StreamReflector, PortfolioReflector])
def test_what_a_reflector_saves_fits_the_saved_reflector_model(reflector: type[DeclaredReflector]):
    state = reflector().state_dict()
    assert set(state) <= set(doc.ReflectorState.model_fields)
    doc.ReflectorState.model_validate(state)
