"""The start screen: a new session (left) or a saved one (right)."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from ael_lab import AELError
from ael_lab.selectors import check_variants, split_variants
from ael_lab.text import shown_lines
from ael_lab.worlds import all_specs, spec_of

from ael_tui.actions import bindings_for
from ael_tui.widgets.opening import (APPROVAL_MODES, NewSession, scenario_availability, selectors_of, usable_backends)
from ael_tui.widgets.readouts import SaveInfo, list_saves
from ael_tui.files.save_list import SaveTable
from ael_tui.files.scenario_fields import (data_example, data_preview_of, option_fields, option_values,
                                           show_for)
from ael_tui.widgets.steady_footer import SteadyFooter


TITLE = " AEL Lab · a Thompson-sampling bandit over memory policies, with reflection you steer"
SHORT_TITLE = " AEL Lab · a bandit over memory policies, with reflection you steer"
COMPACT_BELOW = (120, 40)  # columns, rows: below either, one-line fields (no borders)
PREVIEW_LINES = {False: 16, True: 10}  # a data file's preview at most (compact: 80×24 keeps its field in view)


def _after_previewed_field(fields: list) -> int:
    """Where the form's grid is cut for the data preview: just after the data field of the
    first world that previews its file (the stream world); at the end if none does."""
    for spec in all_specs():
        if data_preview_of(spec.name) is not None:
            at = next((i for i, w in enumerate(fields) if w.id in (f"opt-{spec.name}-data",
                                                                   f"opt-{spec.name}-data-other")), None)
            if at is not None:
                return at + 1
    return len(fields)


def about(scenario: str) -> str:
    """A world's one-line description on the start screen: its spec's summary."""
    try:
        return spec_of(scenario).summary
    except AELError:  # a name no registry line knows (a plugin gone): nothing to say, not a crash
        return ""


class StartScreen(Screen):
    """Below COMPACT_BELOW the screen is `-compact`: fields are one line each, so the form,
    the Start button under it and the saves' list fit 80×24 without scrolling."""

    BINDINGS = bindings_for("start")

    def __init__(self, defaults: NewSession | None = None) -> None:
        super().__init__()
        self.defaults = defaults or NewSession("synthetic")

    def compose(self) -> ComposeResult:
        d = self.defaults
        yield Static(TITLE, id="start-title")
        with Horizontal(id="start-body"):
            with VerticalScroll(id="new-session") as form:
                form.border_title = "New session"
                fields = list(option_fields(all_specs()))
                split = _after_previewed_field(fields)
                with Grid(id="new-form", classes="form-grid"):
                    yield Label("Scenario")
                    yield Select([(d.scenario, d.scenario)], value=d.scenario, allow_blank=False, id="scenario")
                    # what the world is, in one line, under its name (the grid's second column)
                    yield Label("")
                    yield Static(about(d.scenario), id="scenario-about", classes="field-hint", markup=False)
                    yield Label("Seed")
                    yield Input(str(d.seed), type="integer", id="seed")
                    yield Label("Selector")
                    yield Select([(s, s) for s in selectors_of(d.scenario)], value=d.selector, allow_blank=False,
                                 id="selector")
                    yield Label("Variants")
                    yield Input(",".join(d.variants or []), id="variants",
                                placeholder="none (e.g. planners,per-tool)")
                    yield Label("Approval")
                    yield Select([("manual: I decide each one", "manual"), ("auto: approve everything", "auto")],
                                 value=d.approval, allow_blank=False, id="approval")
                    yield Label("Agent")
                    yield Select([(label, v) for v, label in usable_backends("agent")], value="offline",
                                 allow_blank=False, id="agent")
                    yield Label("Reflector")
                    yield Select([(label, v) for v, label in usable_backends("reflector")], value="offline",
                                 allow_blank=False, id="reflector")
                    yield from fields[:split]
                # a data file's preview right under its field, in view at 80×24 as at 160×48, and
                # beside the column fields it helps to fill in (a grid's rows are all one height)
                preview = Static("", id="data-preview", classes="field-hint", markup=False)
                preview.display = False  # shown only with a file's preview
                yield preview
                with Grid(id="new-form-more", classes="form-grid"):
                    yield from fields[split:]
                    yield Label("Autosave every")
                    yield Input("0", type="integer", id="autosave", placeholder="episodes; 0 = off")
                # the button right under the form: in view without scrolling, the notes after it
                yield Button(f"Start ({self.app.key_for('start.new')})", id="start", variant="primary", compact=True)
                yield Static("", id="scenario-note", classes="field-hint", markup=False)
                yield Static("Agent and reflector: offline, or a model whose API key is set in the environment. "
                             "Autosave: every N episodes to saves/autosave-…json (0 = off).", classes="field-hint")
            with Vertical(id="saved-sessions") as saved:
                saved.border_title = "Saved sessions"
                yield Static("", id="saves-folder", classes="field-hint", markup=False)
                yield SaveTable(id="saves-table")
                yield Static("", id="saves-empty", classes="field-hint")
                yield Label("…or open a file")
                yield Input(placeholder="path/to/session.json", id="open-path")
                yield Button(f"Open ({self.app.key_for('start.open')})", id="open", variant="default", compact=True)
        yield SteadyFooter()

    def on_mount(self) -> None:
        for widget in self.query("Input"):
            widget.cursor_blink = self.app.cursor_blink_enabled
        self.query_one("#saves-folder", Static).update(f"in {self.app.settings.saves_dir}/")
        show_for(self, self.defaults.scenario)
        self.query_one("#scenario", Select).focus()
        self.check_scenarios()
        self.rescan()

    def on_resize(self, event) -> None:
        width, height = event.size
        compact = width < COMPACT_BELOW[0] or height < COMPACT_BELOW[1]
        self.set_class(compact, "-compact")
        for field in self.query(".form-grid Select, .form-grid Input, #open-path"):
            field.compact = compact
        title = TITLE if width >= len(TITLE) + 1 else SHORT_TITLE
        self.query_one("#start-title", Static).update(title)
        self.query_one(SaveTable).narrow = width < 100

    # ------------------------------------------------------------- workers
    @work(thread=True, exclusive=True, group="start-scenarios")
    def check_scenarios(self) -> None:
        availability = scenario_availability()
        served = getattr(self.app.settings.served, "mode", None)  # a served lab offers less (ael_tui/serve)
        refused = {n: served.unavailable(n) for n in availability} if served is not None else {}
        self.app.call_from_thread(self._show_scenarios, availability, {n: w for n, w in refused.items() if w})

    def _show_scenarios(self, availability: dict[str, str], refused: dict[str, str] | None = None) -> None:
        if not self.is_mounted:
            return
        refused = refused or {}
        usable = [n for n, why in availability.items() if not why and n not in refused]
        select = self.query_one("#scenario", Select)
        current = select.value
        select.set_options([(n, n) for n in usable])
        if current in usable:
            select.value = current
        missing = [n for n, why in availability.items() if why]
        notes = ([f"not available in this build: {', '.join(missing)}"] if missing else []) + list(refused.values())
        self.query_one("#scenario-note", Static).update("; ".join(notes))

    @work(thread=True, exclusive=True, group="start-saves")
    def rescan(self) -> None:
        infos = list_saves(self.app.settings.saves_dir)
        self.app.call_from_thread(self._show_saves, infos)

    def _show_saves(self, infos: list[SaveInfo]) -> None:
        if not self.is_mounted:
            return
        self.query_one(SaveTable).show(infos)
        self.query_one("#saves-empty", Static).update("" if infos else "No saves yet.")

    # ------------------------------------------------------- data preview
    def on_input_changed(self, event: Input.Changed) -> None:
        """A scenario that reads a file the person names (the stream world) previews it:
        its rows, its columns and their types, so the columns can be picked."""
        scenario = str(self.query_one("#scenario", Select).value)
        if event.input.id == f"opt-{scenario}-data" and data_preview_of(scenario) is not None:
            self.preview_data(scenario, event.value.strip())

    @work(thread=True, exclusive=True, group="start-preview")
    def preview_data(self, scenario: str, path: str) -> None:
        hook = data_preview_of(scenario)
        text = ""
        if path and hook is not None:
            try:
                # a served lab reads only inside its sessions folder: placed before anything is read
                placed = self.app.settings.readable(Path(path), "data file", data_example(scenario))
                # not a regular file (a FIFO, a device) is the hook's one line, read never begun
                text = hook(str(placed)) if placed.expanduser().exists() else f"{path}: no such file (yet)"
            except AELError as err:
                text = str(err)
        self.app.call_from_thread(self._show_preview, scenario, path, text)

    def _show_preview(self, scenario: str, path: str, text: str) -> None:
        if not self.is_mounted:
            return
        field = self.query(f"#opt-{scenario}-data")
        if field and str(field.first().value).strip() == path:  # only the latest path's preview
            self._set_preview(text)

    def _set_preview(self, text: str) -> None:
        widget = self.query_one("#data-preview", Static)
        lines = text.splitlines()
        cap = PREVIEW_LINES[self.has_class("-compact")]
        if len(lines) > cap:  # a wide file: the first columns, and how many more (the form stays in view)
            lines = [*lines[:cap - 1], f"… and {len(lines) - cap + 1} more lines"]
        widget.update(shown_lines("\n".join(lines)))  # a file's rows and column names: shown, never obeyed
        widget.display = bool(text)

    # ---------------------------------------------------------------- form
    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "scenario" and isinstance(event.value, str):
            selector = self.query_one("#selector", Select)
            options = selectors_of(event.value)
            keep = selector.value if selector.value in options else (
                "ts+reflection" if "ts+reflection" in options else options[0])
            selector.set_options([(s, s) for s in options])
            selector.value = keep
            self.query_one("#scenario-about", Static).update(about(event.value))
        scenario = str(self.query_one("#scenario", Select).value)
        show_for(self, scenario)
        if event.select.id == "scenario":
            self._set_preview("")
            field = self.query(f"#opt-{scenario}-data")
            if field and data_preview_of(scenario) is not None:
                self.preview_data(scenario, str(field.first().value).strip())

    def form(self) -> NewSession:
        """The form as a NewSession; AELError naming the field that is wrong."""
        scenario = str(self.query_one("#scenario", Select).value)
        seed_text = self.query_one("#seed", Input).value.strip()
        try:
            seed = int(seed_text)
        except ValueError:
            raise AELError(f"seed: {seed_text!r} is not a whole number") from None
        options = option_values(self, spec_of(scenario))
        approval = str(self.query_one("#approval", Select).value)
        if approval not in APPROVAL_MODES:
            raise AELError("approval: choose manual or auto")
        variants = [v.text for v in check_variants(split_variants(self.query_one("#variants", Input).value),
                                                   scenario)]
        return NewSession(scenario=scenario, seed=seed, selector=str(self.query_one("#selector", Select).value),
                          approval=approval, agent=str(self.query_one("#agent", Select).value),
                          reflector=str(self.query_one("#reflector", Select).value), options=options,
                          variants=variants)

    def autosave_every(self) -> int:
        text = self.query_one("#autosave", Input).value.strip() or "0"
        try:
            n = int(text)
            if n < 0:
                raise ValueError
        except ValueError:
            raise AELError(f"autosave: {text!r} should be a whole number of episodes, 0 for off") from None
        return n

    # ------------------------------------------------------------- actions
    def action_start_session(self) -> None:
        try:
            spec = self.form()
            self.app.settings.autosave_every = self.autosave_every()
        except AELError as err:
            self.notify(str(err), severity="error", title="Cannot start")
            return
        self.app.start_new_session(spec)

    def action_open_selected(self) -> None:
        typed = self.query_one("#open-path", Input).value.strip()
        path = Path(typed).expanduser() if typed else self.query_one(SaveTable).selected_path
        if path is None:
            self.notify("Choose a save in the list or type a path.", severity="warning")
            return
        self.app.open_saved_session(path)

    def action_rescan(self) -> None:
        self.rescan()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":  # only over a lab (ctrl+n there): nothing to go back to at start-up
            return self.app.lab is not None
        return True

    def action_back(self) -> None:
        if self.app.lab is not None:
            self.app.pop_screen()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "start":
            self.action_start_session()
        elif event.button.id == "open":
            self.action_open_selected()

    def on_data_table_row_selected(self, event) -> None:
        event.stop()
        path = self.query_one(SaveTable).selected_path
        if path is not None:
            self.app.open_saved_session(path)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "open-path":
            self.action_open_selected()
        else:
            self.action_start_session()
