"""The one registry of named actions.

Every key the lab answers to is declared here once: a stable id (what a
keymap file remaps), the default key, the Textual action it runs, a short
footer label and a sentence for tooltips and the command palette. Screens
build their `BINDINGS` from it (`bindings_for(scope)`), the command palette
lists it (`commands.py`), and `config.py` checks keymap files against it, so
a new feature adds its actions here and gets all three.

Scopes: `app` (everywhere), `start` (start screen), `lab` (lab screen),
`compare` (several selectors in lockstep), `chart` (a focused chart, any screen), `approval` (the decision dialog),
`editor` (the proposal editor), `tour` (a guided tour's card), and the small
dialogs. Two actions may share a key in one scope: the first whose
`check_action` allows it runs (Escape pauses a run, else closes a card).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.binding import Binding

from ael_tui.compat import bindings_of


@dataclass(frozen=True)
class NamedAction:
    id: str           # stable binding id, e.g. "lab.step" (what keys.json remaps)
    scope: str        # app, start, lab, approval, editor, ...
    key: str          # default key(s), comma separated, Textual key names
    action: str       # the Textual action run in the scope's namespace
    label: str        # footer label
    help: str         # tooltip and command-palette help
    show: bool = True
    palette: bool = True    # offered in the command palette
    priority: bool = False
    key_display: str | None = None
    group: str | None = None  # footer: keys of one group share one label (the group's name)


ACTIONS: tuple[NamedAction, ...] = (
    # ---------------------------------------------------------------- app
    NamedAction("app.quit", "app", "ctrl+q", "quit", "Quit", "Quit AEL Lab (asks first if progress is unsaved)",
                priority=True, show=False),  # hidden, as Textual hides it: ctrl+c says how to quit
    NamedAction("app.help", "app", "f1,question_mark", "help", "Help",
                "What each panel shows, and every key", key_display="F1"),
    NamedAction("app.screenshot", "app", "s", "save_svg", "SVG",
                "Save a screenshot of this screen as SVG (for slides); asks where, the exports folder by default"),
    # -------------------------------------------------------------- start
    NamedAction("start.new", "start", "ctrl+n", "start_session", "Start",
                "Start a new session with the settings in the form"),
    NamedAction("start.open", "start", "ctrl+o", "open_selected", "Open save",
                "Open the highlighted saved session (or the path typed below the list)"),
    NamedAction("start.rescan", "start", "f5", "rescan", "Rescan saves", "Read the saves folder again"),
    NamedAction("start.back", "start", "escape", "back", "Back to the lab",
                "Back to the session this screen was opened from, unchanged", key_display="esc"),
    # ---------------------------------------------------------------- lab
    # In footer order: what a person needs most comes first, so a 100-column footer
    # still shows it. Keys a screen cannot use now are hidden (check_action False):
    # the run keys while running, pause while not, decide with nothing pending.
    NamedAction("lab.step", "lab", "space", "step", "Step", "Run one episode", key_display="space"),
    NamedAction("lab.window", "lab", "w", "run_window", "Window",
                "Run one slow window (to the next reflection check)"),
    NamedAction("lab.reflection", "lab", "r", "run_reflection", "Reflect",
                "Run to the next reflection that proposes something (silent ones are counted, not stopped at)"),
    NamedAction("lab.each_reflection", "lab", "e", "run_each_reflection", "Each refl.",
                "Run to the next reflection, even one that proposes nothing"),
    NamedAction("lab.phase", "lab", "g", "run_phase", "Phase", "Run to the end of the current phase"),
    NamedAction("lab.pause", "lab", "p,escape", "pause", "Pause", "Pause the run now (p or Escape)", key_display="p"),
    NamedAction("lab.decide", "lab", "d", "decide", "Decide",
                "Open the pending proposal: approve, edit or reject it"),
    NamedAction("lab.panels", "lab", "v", "next_panels", "Panels",
                "Small terminal: show the next group of panels (bandit, progress, memory, episodes)"),
    NamedAction("lab.tour", "lab", "t", "tour", "Tour",
                "Guided tour: run to the next key moment of the method and explain it"),
    NamedAction("lab.compare", "lab", "c", "compare", "Compare",
                "Run this scenario and seed under several selectors side by side, in lockstep"),
    NamedAction("lab.faster", "lab", "plus,equals_sign", "faster", "Faster",
                "Shorten the delay between episodes", key_display="+", group="Speed"),
    NamedAction("lab.slower", "lab", "minus", "slower", "Slower",
                "Lengthen the delay between episodes", key_display="-", group="Speed"),
    NamedAction("lab.audit", "lab", "a", "audit", "Audit", "Every decision so far, with its author and reason"),
    NamedAction("lab.reflections", "lab", "R", "reflections", "History",
                "Every reflection of this run, newest first", key_display="R"),
    NamedAction("lab.results", "lab", "f", "results", "Results",
                "This run's results so far beside baselines on the same world and seed, and the paper's row"),
    NamedAction("lab.rewind", "lab", "b", "rewind", "Go back",
                "Go back to episode N (asks; a click on the progress chart too): stepping on gives the same "
                "run again, a decision taken otherwise there starts a branch"),
    NamedAction("lab.undo", "lab", "z", "undo", "Undo",
                "Undo the last decision: back to where it was made, the proposal waiting to be decided again"),
    NamedAction("lab.branches", "lab", "B", "branches", "Branches",
                "Compare the branch with the run it came from: curves, posteriors, where they first differ",
                key_display="B"),
    NamedAction("lab.rules", "lab", "u", "rules", "Rules",
                "Standing rules (always approve a kind): who set each and when; revoke one here",
                show=False),  # the status line names the key beside a rule in force
    NamedAction("lab.filter", "lab", "slash", "focus_filter", "Filter",
                "Filter the memory entries of the current tier", key_display="/"),
    NamedAction("lab.tier", "lab", "m", "next_tier", "Tier", "Show the next memory tier"),
    NamedAction("lab.export", "lab", "x", "export", "Export",
                "Export the history as CSV and JSON (to exports/ or a folder you choose)"),
    # k and S with no chart focused: the progress chart's, said so (a focused chart's own keys come first)
    NamedAction("lab.chart_kind", "lab", "k", "chart_kind", "Kind",
                "Switch the progress chart (or the focused chart): rolling, cumulative reward, cumulative regret",
                show=False),
    NamedAction("lab.chart_svg", "lab", "S", "export_chart", "Chart SVG",
                "Write the progress chart (or the focused chart) alone as SVG into the exports folder",
                key_display="S", show=False),
    NamedAction("lab.save", "lab", "ctrl+s", "save", "Save", "Save this session to a file"),
    NamedAction("lab.load", "lab", "ctrl+o", "load", "Load", "Load a saved session (this one stays if it fails)"),
    NamedAction("lab.settings", "lab", "o", "settings", "Options", "Autosave and speed settings", show=False),
    NamedAction("lab.new", "lab", "ctrl+n", "new_session", "New", "Back to the start screen for a new session",
                show=False),
    # ------------------------------------------------------------ compare
    NamedAction("compare.step", "compare", "space", "step", "Step", "Run one episode under every selector",
                key_display="space"),
    NamedAction("compare.window", "compare", "w", "run_window", "Window",
                "Run one slow window under every selector"),
    NamedAction("compare.reflection", "compare", "r", "run_reflection", "Reflect",
                "Run until any selector's reflector reflects"),
    NamedAction("compare.phase", "compare", "g", "run_phase", "Phase", "Run every selector to the end of the phase"),
    NamedAction("compare.pictures", "compare", "i", "pictures", "Pictures",
                "Small screen: which policy each selector played when and its mean per regime, in place of "
                "the posterior bars (i again: back)"),
    NamedAction("compare.pause", "compare", "p,escape", "pause", "Pause", "Pause the run now (p or Escape)",
                key_display="p"),
    NamedAction("compare.faster", "compare", "plus,equals_sign", "faster", "Faster",
                "Shorten the delay between episodes", key_display="+", group="Speed"),
    NamedAction("compare.slower", "compare", "minus", "slower", "Slower",
                "Lengthen the delay between episodes", key_display="-", group="Speed"),
    NamedAction("compare.export", "compare", "x", "export", "Export",
                "Export every selector's history as one CSV and one JSON"),
    NamedAction("compare.close", "compare", "c,escape", "close", "Back",
                "Back to the lab (c again comes back to this comparison)", key_display="c"),
    # ------------------------------------------- a focused chart (Tab or a click)
    NamedAction("chart.svg", "chart", "S", "export_chart", "Chart SVG",
                "Write the focused chart alone as SVG (vectors, for slides) into the exports folder",
                key_display="S", palette=False),
    NamedAction("chart.kind", "chart", "k", "chart_kind", "Kind",
                "Switch what the focused chart shows: rolling, cumulative reward, cumulative regret",
                palette=False),
    # --------------------------------------------------------------- tour
    NamedAction("tour.next", "tour", "t", "next", "Next moment", "Close this card and run to the next key moment"),
    NamedAction("tour.close", "tour", "escape", "close", "Close",
                "Close this card; t in the lab continues the tour", key_display="esc"),
    # the lab's run keys on a card: the card closes and the run starts, as the lab's key would (issue 41)
    NamedAction("tour.step", "tour", "space", "run('step')", "Step", "Close this card and run one episode",
                key_display="space", show=False, palette=False),
    NamedAction("tour.window", "tour", "w", "run('window')", "Window",
                "Close this card and run one slow window", show=False, palette=False),
    NamedAction("tour.reflection", "tour", "r", "run('reflection')", "Reflect",
                "Close this card and run to the next reflection that proposes something", show=False, palette=False),
    NamedAction("tour.screenshot", "tour", "s", "app.save_svg", "SVG",
                "Save a screenshot of the card over the lab as SVG (for slides)", show=False, palette=False),
    # ------------------------------------------------------- approval dialog
    NamedAction("approval.approve", "approval", "y", "approve", "Approve", "Approve the proposal as it stands"),
    NamedAction("approval.edit", "approval", "e", "edit", "Edit", "Edit the proposal's JSON, validated live"),
    NamedAction("approval.reject", "approval", "n", "reject", "Reject", "Reject the proposal (a reason is optional)"),
    NamedAction("approval.always", "approval", "A", "always", "Always approve",
                "Approve this one and every later proposal of the same kind", key_display="A"),
    NamedAction("approval.later", "approval", "escape", "later", "Later",
                "Close; the proposal stays pending and stepping stays blocked"),
    NamedAction("approval.batch", "approval", "b", "batch", "All pending",
                "Decide every pending proposal at once: approve or reject the ticked ones"),
    NamedAction("approval.tour", "approval", "t", "tour_waits", "Tour",
                "The tour goes on once this proposal is decided (says so in the dialog)", show=False, palette=False),
    # ------------------------------------------------------- batch decisions
    NamedAction("batch.approve", "batch", "y", "approve", "Approve ticked", "Approve every ticked proposal"),
    NamedAction("batch.reject", "batch", "n", "reject", "Reject ticked",
                "Reject every ticked proposal (one reason for all, optional)"),
    NamedAction("batch.cancel", "batch", "escape", "cancel", "Back", "Back to the single proposal, deciding nothing",
                key_display="esc"),
    # ------------------------------------------ code review (a loaded file's code)
    NamedAction("code_review.admit", "code_review", "y", "admit", "Admit",
                "Admit this code policy: its arm may be sampled again (runs sandboxed)"),
    NamedAction("code_review.reject", "code_review", "n", "reject", "Reject",
                "Reject it: the arm stays in the pool but is never sampled"),
    NamedAction("code_review.later", "code_review", "escape", "later", "Later",
                "Close; the policy stays quarantined and stepping stays blocked"),
    # ------------------------------------------------------------- editor
    NamedAction("editor.accept", "editor", "ctrl+s", "accept", "Accept edit",
                "Accept the edited object (only when it is valid)"),
    NamedAction("editor.reset", "editor", "ctrl+r", "reset", "Reset", "Put the proposal's original JSON back"),
    NamedAction("editor.cancel", "editor", "escape", "cancel", "Back", "Leave the editor without deciding"),
    # ------------------------------------------------------- small dialogs
    NamedAction("confirm.yes", "confirm", "y", "answer(True)", "Yes", "Confirm"),
    NamedAction("confirm.no", "confirm", "n,escape", "answer(False)", "No", "Cancel", key_display="n/esc"),
    NamedAction("prompt.cancel", "prompt", "escape", "cancel", "Cancel", "Close without an answer"),
    NamedAction("settings.cancel", "settings", "escape", "cancel", "Cancel", "Close, changing nothing"),
    NamedAction("load.cancel", "load", "escape", "cancel", "Cancel", "Close, loading nothing"),
    NamedAction("view.close", "view", "escape,q", "close", "Close", "Close this view", key_display="esc"),
    NamedAction("rules.revoke", "rules", "delete", "revoke", "Revoke",
                "Revoke the highlighted rule: later proposals of its kind wait for a person", key_display="del"),
    NamedAction("rules.close", "rules", "escape,q", "close", "Close", "Close this view", key_display="esc"),
    # c, as the lab's key that opened the dialog (c, then c again): never ctrl+s, which saves everywhere else
    NamedAction("compare_setup.go", "compare_setup", "c", "go", "Compare",
                "Start the comparison with the selectors ticked"),
    NamedAction("compare_setup.cancel", "compare_setup", "escape", "cancel", "Cancel", "Close, comparing nothing"),
)

BY_ID: dict[str, NamedAction] = {a.id: a for a in ACTIONS}


def actions_for(scope: str) -> list[NamedAction]:
    return [a for a in ACTIONS if a.scope == scope]


_GROUPS: dict[str, Binding.Group] = {}


def _group(name: str | None) -> Binding.Group | None:
    if name is None:
        return None
    return _GROUPS.setdefault(name, Binding.Group(name, compact=True))


def bindings_for(scope: str) -> list[Binding]:
    """Textual bindings of a scope, each with its id and tooltip, for `BINDINGS`."""
    return [
        Binding(a.key, a.action, a.label, show=a.show, key_display=a.key_display, priority=a.priority,
                tooltip=a.help, id=a.id, group=_group(a.group))
        for a in actions_for(scope)
    ]


def hands_over(owner: str, method: str, *args: object):
    """A screen's action that hands its key over to the object that owns it: `owner` is the
    screen's attribute holding that object, `method` what it runs (with `args`). The screen
    keeps the binding, because Textual looks a key up only in the focused widget and its
    ancestors (an object that draws nothing is never focused); the object keeps the logic."""

    def action(self) -> None:
        getattr(getattr(self, owner), method)(*args)

    action.__doc__ = f"The key of `{owner}.{method}`."
    action.hands_over = (owner, method)  # type: ignore[attr-defined]  (what a test checks exists)
    return action


KEY_NAMES = {"space": "space", "escape": "esc", "question_mark": "?", "slash": "/", "plus": "+",
             "equals_sign": "=", "minus": "-", "enter": "enter"}


def key_label(keys: str) -> str:
    """How a person reads a binding's first key: "ctrl+s", "esc", "/", "R"."""
    first = keys.split(",")[0].strip()
    return KEY_NAMES.get(first, first)


class SaysWhy:
    """Mixed into a Screen: a key of it that cannot act now (its `check_action` is False, which
    also hides it from the footer) says why (`why_not`) instead of doing nothing. Runs as the
    key bubbles up to the screen, before the app looks for a binding; a key some enabled
    binding takes is left alone."""

    def on_key(self, event: events.Key) -> None:
        bindings = bindings_of(self).key_to_bindings.get(event.key, ())
        if not bindings or any(self.check_action(b.action.split("(")[0], ()) is not False  # type: ignore[attr-defined]
                               for b in bindings):
            return  # (the common case, at the cost of a dict lookup: this screen acts on the key)
        active = self.active_bindings.get(event.key)  # type: ignore[attr-defined]
        if active is not None and active.enabled:
            return  # the focused widget's or the app's binding takes it
        for binding in bindings:
            why = self.why_not(binding.action, event.key)
            if why:
                event.stop()
                event.prevent_default()
                self.say_why(why)
                return

    def why_not(self, action: str, key: str) -> str | None:
        """Why `action` (pressed as `key`) cannot act now, in words, or None (nothing to say)."""
        return None

    def say_why(self, why: str) -> None:
        self.notify(why, title="Not now", timeout=4)  # type: ignore[attr-defined]
