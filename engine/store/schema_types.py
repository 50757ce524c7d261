"""The building blocks of the save schema, for every model of saved state.

The session's own parts are modelled in engine/store/session_schema.py; an extension's
state (a method's, a variant's, a scenario's run state) is modelled beside the
extension, from these types, and named by its class's `state_model` (a
`engine.deferred.Deferred`, so pydantic is imported only when a save is read or
written). Strict mode: a string is not a number, a float is not an int, NaN and
infinities are refused, unknown fields are refused (`Strict`) unless a part is
meant to be extended (`Open`).
"""

from __future__ import annotations

from typing import Annotated, Any, Iterable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..limits import COUNT_MAX, EPISODES_MAX, POSITIVE_MAX, POSTERIOR_MAX

MAX_ITEMS = EPISODES_MAX     # episodes, memory entries, proposals: a stream of the most rows a data file may hold
MAX_TEXT = 1_000_000         # characters in one text field
MAX_PRIOR_ITEMS = 10_000     # records in a method's own memory

Count = Annotated[int, Field(ge=0, le=COUNT_MAX)]
Episodes = Annotated[int, Field(ge=1, le=COUNT_MAX)]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]
Positive = Annotated[float, Field(gt=0.0, le=POSITIVE_MAX)]
Posterior = Annotated[float, Field(gt=0.0, le=POSTERIOR_MAX)]  # a prior (Positive) plus counts
Finite = Annotated[float, Field(ge=-1e15, le=1e15)]
Text = Annotated[str, Field(max_length=MAX_TEXT)]
Name = Annotated[str, Field(min_length=1, max_length=200)]
Word = Annotated[str, Field(max_length=200)]
SourceText = Annotated[str, Field(max_length=20_000)]   # code is vetted again (and a person admits it) after a load
Items = Field(max_length=MAX_ITEMS)


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


class Open(Strict):
    """A part whose fields the scenario or a later version may extend."""
    model_config = ConfigDict(strict=True, extra="allow", allow_inf_nan=False)


class SavedState(Strict):
    """Base of an extension's saved-state model. `record_episodes()` names the episodes its
    records were made at: a save whose records lie beyond the episodes run is refused."""

    def record_episodes(self) -> Iterable[int]:
        return ()


class NoState(SavedState):
    """The state of an extension that keeps none: only `{}` fits."""


def first_problem(err: ValidationError, prefix: str) -> str:
    """The first of pydantic's errors as one line, its field under `prefix`."""
    first = err.errors(include_url=False)[0]
    where = ".".join(str(p) for p in (prefix, *first["loc"]) if p != "")
    msg = first["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    return f"{where}: {msg[0].lower()}{msg[1:]}" if msg else f"{where}: invalid"


def check_state(model: Any, state: Any, prefix: str, t: int | None = None) -> None:
    """`state` against an extension's `model` (None: it keeps none, so only an empty
    state fits); ValueError naming the field. With `t`, records beyond the t episodes
    run are refused."""
    if model is None:
        if state:
            raise ValueError(f"{prefix}: saved state for an extension that declares none (state_model)")
        return
    try:
        parsed = model.model_validate(state if state is not None else {})
    except ValidationError as err:
        raise ValueError(first_problem(err, prefix)) from None
    if t is not None and isinstance(parsed, SavedState):
        last = max(parsed.record_episodes(), default=None)
        if last is not None and last >= max(t, 1):
            raise ValueError(f"{prefix}: a record of episode {last}, beyond the {t} episodes run")
