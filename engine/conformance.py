"""The engine's half of the conformance checks: the machinery every public check of a world,
a method or a variant runs (`ael_lab.check_scenario`, `check_method`, `check_variant`, in
ael_lab/extend/checks.py, compose it; this module binds no registry and names no check).

Each raises `ConformanceError` naming the extension and what it failed:

- `straight_run`: it builds and steps through warm-up and more than one slow window;
- `check_resume`: a save made mid-run, loaded and run on, equals the run that never stopped
  (the history and every part of the state that learns);
- `check_saved_state`: what it saves fits the model its class declares (`state_model`): a
  method or variant whose state is not empty must declare one, and so must a world with
  run state; none of it lies beyond the episodes run;
- `one_line_refusal`: a bad option is refused with one line (`AELError`), before anything runs;
- `check_time_travel`: it goes back exactly (engine/timetravel.py): rewound mid-run and run on,
  it is the run that was; a branch of its save with no decision changed is the same run, and
  one with its first decision taken the other way is the same run up to that decision.

The engine knows no scenario registry (scenarios build on the engine), so these take the
registry's function `make_scenario(name, seed, options)`.
"""

from __future__ import annotations

import inspect
import json
import tempfile
from pathlib import Path
from typing import Any, Callable

from .deferred import Deferred
from .errors import AELError
from .session import Session, SessionConfig

MakeScenario = Callable[[str, int, dict], Any]

def learned(session_type: type[Session] = Session) -> tuple[str, ...]:
    """What must stay equal between a run that was saved and resumed and one that never
    stopped: every part of the session's state (`PARTS`) but what is spent rather than
    learned (the LLM ledger); the queue is compared without the wall-clock times its
    decisions carry (`CLOCK`)."""
    return tuple(part.key for part in session_type.PARTS if part.kind != "spent")


LEARNED = learned()
CLOCK = ("at", "revoked_at", "saved_at")


class ConformanceError(AssertionError):
    """An extension that does not keep the contract; the message says which part."""


def _fail(what: str, message: str) -> ConformanceError:
    return ConformanceError(f"{what}: {message}")


def one_line_refusal(what: str, action: Callable[[], Any], words: str = "") -> str:
    """`action()` must raise AELError with one line (containing `words`); the line."""
    try:
        action()
    except AELError as err:
        text = str(err)
        if "\n" in text or not text.strip():
            raise _fail(what, f"its refusal is not one line: {text!r}") from None
        if words and words not in text:
            raise _fail(what, f"its refusal does not name {words!r}: {text!r}") from None
        return text
    except Exception as err:  # noqa: BLE001  (anything else is what the check exists to catch)
        raise _fail(what, f"a bad value raised {type(err).__name__} ({err}), not a one-line AELError") from err
    raise _fail(what, "a bad value was accepted")


def run_length(session: Session) -> int:
    """Episodes enough to cross warm-up and two slow windows (and distillation), within the stream."""
    wanted = session.warmup + 2 * session.slow_window + max(session.config.distill_every, 3) + 2
    return min(session.n_episodes, wanted)


def straight_run(what: str, config: SessionConfig, make_scenario: MakeScenario, *,
                 session_class: type[Session] = Session) -> Session:
    """`config` built and run straight through `run_length` episodes: what the other checks compare with."""
    try:
        straight = session_class(config, make_scenario(config.scenario, config.seed, dict(config.scenario_options)))
    except AELError as err:
        raise _fail(what, f"the session does not build ({err})") from err
    end = run_length(straight)
    straight.run(until=end)
    if straight.t != end:
        raise _fail(what, f"stopped at episode {straight.t} of {end} ({straight.blocked_reason})")
    return straight


def cut_of(straight: Session) -> int:
    """Where a check stops a run midway: past warm-up, before the end (learning is under way)."""
    return max(1, (straight.warmup + straight.t) // 2 + 1)


def check_resume(what: str, config: SessionConfig, make_scenario: MakeScenario, *,
                 session_class: type[Session] = Session, straight: Session | None = None) -> Session:
    """Run `config` straight through (or take `straight`, that run); run it again, save mid-run,
    load, run on: the two must be equal. Returns the straight session."""
    from .store.persistence import load_session, save_session  # pydantic's save schema: only here

    if straight is None:
        straight = straight_run(what, config, make_scenario, session_class=session_class)
    end, cut = straight.t, cut_of(straight)
    part = session_class(config, make_scenario(config.scenario, config.seed, dict(config.scenario_options)))
    part.run(until=cut)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "conformance.json"
        save_session(part, path)
        try:
            resumed = load_session(path, make_scenario)
        except AELError as err:
            raise _fail(what, f"its own save at episode {cut} does not load ({err})") from err
    resumed.run(until=end)
    differs = _first_difference(straight, resumed)
    if differs:
        raise _fail(what, f"saved at episode {cut} and resumed, its {differs!r} differs at episode {end} "
                    "from the run that never stopped")
    return straight


def _first_difference(a: Session, b: Session) -> str | None:
    """The first part of what a session learns that differs between the two, or None."""
    da, db = a.to_dict(), b.to_dict()
    for key in learned(type(a)):
        if json.dumps(_no_clock(da.get(key)), sort_keys=True) != json.dumps(_no_clock(db.get(key)), sort_keys=True):
            return key
    return None


def check_time_travel(what: str, session: Session, n: int, make_scenario: MakeScenario) -> None:
    """`session`, run to its end, goes back to episode `n` and on again to the same run; its
    save branched at `n` with nothing changed is the same run; with its first decision taken
    the other way, the same run up to that decision. `session` is left as it was."""
    end = session.t
    saved = json.loads(json.dumps(session.to_dict()))

    def loaded() -> Session:
        return type(session).from_dict(json.loads(json.dumps(saved)), make_scenario)

    reference = loaded()
    session.rewind_to(n)
    session.run(until=end)
    differs = _first_difference(session, reference)
    if differs:
        raise _fail(what, f"rewound to episode {n} and run on to {end}, its {differs!r} differs from the run that was")
    branch = loaded()
    branch.branch(n, {})
    branch.run(until=end)
    differs = _first_difference(branch, reference)
    if differs:
        raise _fail(what, f"branched at episode {n} with no decision changed, its {differs!r} differs at {end}")
    decided = [a for a in reference.queue.audit if a.decision in ("approve", "edit", "reject") and a.episode < end]
    if not decided:
        return
    first = decided[0]
    flipped = loaded()
    flipped.branch(end, {first.proposal_id: "approve" if first.decision == "reject" else "reject"})
    if flipped.history[:first.episode + 1] != reference.history[:first.episode + 1]:
        raise _fail(what, f"with proposal #{first.proposal_id} decided the other way, episodes before "
                    f"{first.episode + 1} differ: a branch must keep what came before its decision")


def _no_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _no_clock(v) for k, v in value.items() if k not in CLOCK}
    if isinstance(value, list):
        return [_no_clock(v) for v in value]
    return value


def check_saved_state(what: str, session: Session) -> None:
    """What the session's extensions save fits the models their classes declare."""
    from .store.schema_types import check_state  # pydantic: only here

    checks = [("method", type(session.method), session.method.state_dict()),
              *((f"variants.{v.name}", type(v), v.state_dict()) for v in session.variants.items),
              ("scenario_state", type(session.scenario), session.scenario.state_dict())]
    for key, cls, state in checks:
        raw = inspect.getattr_static(cls, "state_model", None)  # (getattr would hide a bad name as None)
        try:
            model = raw.__get__(None, cls) if isinstance(raw, Deferred) else raw  # imports its module now
        except (ImportError, AttributeError) as err:
            raise _fail(what, f"{cls.__name__}.state_model names a model that cannot be imported ({err})") from err
        if model is not None and not (isinstance(model, type) and hasattr(model, "model_validate")):
            raise _fail(what, f"{cls.__name__}.state_model is not a pydantic model ({model!r})")
        if not state and key != "scenario_state":
            continue  # a method's or variant's empty state is not written to a save
        if model is None and state:
            raise _fail(what, f"{cls.__name__} saves {key} ({', '.join(sorted(state)[:3])}) but declares no "
                        "state_model for it: a save of it would be refused or go unchecked")
        try:
            check_state(model, json.loads(json.dumps(state)), key, session.t)
        except ValueError as err:
            raise _fail(what, f"its saved state does not fit its own model ({err})") from err


def bad_value(option) -> Any:
    """A value the option must refuse: not one of its choices (when it takes no other), or
    below its minimum; None when every value of its kind may be fine."""
    if option.choices and not option.other:
        return "no-such-choice"
    if option.minimum is not None and option.kind in (int, float):
        return option.kind(option.minimum - 1)
    return None
