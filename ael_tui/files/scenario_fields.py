"""The start screen's fields for scenario options, built from each ScenarioSpec.

For every exposed option of every registered scenario: a label and a choice list
(its choices, plus "other" when a typed value is allowed, which then shows a
text field), or a text field when it has no choices. They are composed once,
in the form's grid, and shown only while their scenario is chosen, so switching
scenarios never rebuilds the form.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, Iterator

from textual.widget import Widget
from textual.widgets import Input, Label, Select

from ael_lab import AELError
from ael_lab.worlds import OptionSpec, ScenarioSpec

OTHER = "__other__"  # the choice that opens the text field


def _id(spec: ScenarioSpec, option: OptionSpec, part: str = "") -> str:
    return f"opt-{spec.name}-{option.name}" + (f"-{part}" if part else "")


def option_fields(specs: list[ScenarioSpec]) -> Iterator[Widget]:
    """The widgets for the form's two-column grid (label, field), every one hidden
    until `show_for` names its scenario."""
    for spec in specs:
        for option in (o for o in spec.options if o.expose):
            tag = f"scenario-option for-{spec.name}"
            yield Label(option.title, classes=tag)
            if option.choices:
                choices = [(c.label, c.value) for c in option.choices]
                if option.other:
                    choices.append((option.other, OTHER))
                yield Select(choices, value=option.default if option.default in option.values else choices[0][1],
                             allow_blank=False, id=_id(spec, option), classes=tag)
                if option.other:
                    other = f"{tag} other-for-{spec.name}-{option.name}"
                    yield Label(option.other_label or option.other, classes=other)
                    yield Input(placeholder=option.example, id=_id(spec, option, "other"), classes=other)
            else:
                yield Input(_text(option.default), placeholder=option.example, id=_id(spec, option), classes=tag)


def _text(default: Any) -> str:
    """A default as the field shows it: a list as a,b,c (empty for none)."""
    if default is None:
        return ""
    return ",".join(default) if isinstance(default, list) else str(default)


def data_preview_of(scenario: str):
    """The scenario's `preview(path) -> str` of a data file, when its spec module has one
    (the stream world's shows the rows, the columns and their types); None otherwise."""
    from ael_lab.worlds import data_preview

    return data_preview(scenario)


def data_example(scenario: str) -> str:
    """A file name like the scenario's data option's example (tickets.csv): the hint of a
    served lab's refusal of a data file outside its folder."""
    from ael_lab.worlds import spec_of

    option = next((o for o in spec_of(scenario).options if o.name == "data"), None)
    return PurePath(option.example).name if option is not None and option.example else "data.csv"


def show_for(root: Widget, scenario: str) -> None:
    """Show the chosen scenario's fields (and a text field only when 'other' is chosen)."""
    for widget in root.query(".scenario-option"):
        widget.display = widget.has_class(f"for-{scenario}")
    for select in root.query(Select):
        if select.id and select.id.startswith(f"opt-{scenario}-"):
            for widget in root.query(f".other-for-{select.id[len('opt-'):]}"):
                widget.display = select.value == OTHER


def option_values(root: Widget, spec: ScenarioSpec) -> dict[str, Any]:
    """The chosen scenario's options as typed in the form, parsed by their
    declarations; AELError naming the field (by its label) that is wrong."""
    values: dict[str, Any] = {}
    for option in (o for o in spec.options if o.expose):
        field = root.query_one(f"#{_id(spec, option)}")
        text = str(field.value).strip()
        if text == OTHER:
            text = root.query_one(f"#{_id(spec, option, 'other')}", Input).value.strip()
            if not text:
                raise AELError(f"{option.title.lower()}: type {option.other}")
        if text == "" or text == _text(option.default):
            continue  # the default: left out, as the command line leaves it out
        try:
            values[option.name] = option.parse(text)
        except AELError as err:
            raise AELError(f"{option.title.lower()}: {str(err).split(': ', 1)[-1]}") from None
    return values
