"""Help (F1 or ?): what each panel shows, in two or three sentences, and every key.

The keys are read from the action registry with the keymap in force, so a
remapped key is shown as remapped.
"""

from __future__ import annotations

import re

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ael_tui.actions import ACTIONS, bindings_for

PANELS: dict[str, list[tuple[str, str]]] = {
    "The lab": [
        ("Status line",
         "Where the run is: scenario, seed, episode and phase (❄ when learning is frozen for the test phase), the "
         "true regime, which the scenario knows and the agent does not, and the reflector's own regime label with "
         "its confidence. The second line: the selector, the approval mode and standing rules, proposals waiting, "
         "the LLM backend with its cost so far, and whether the run is going."),
        ("Posteriors",
         "One row per arm, that is per memory-retrieval policy. Thompson sampling keeps a Beta(α, β) belief about "
         "each arm's success rate: a reward r adds r to α and 1 − r to β, so the mean is α/(α+β) and the 90% "
         "interval shows how sure it is. ◀ marks the arm that played the last episode, 'last' its last sample; a "
         "+ marks an arm that reflection added. Each name is in its curve's colour in the densities."),
        ("Beta densities",
         "The same beliefs drawn as curves over the success probability: wide means unsure, narrow means well "
         "tried. Every episode Thompson sampling draws one number from each curve and plays the highest, so an "
         "unsure arm still gets its chances."),
        ("Progress",
         "The rolling accuracy (or reward; equity and drawdown for the portfolio) over the last window of "
         "episodes. Gray lines mark hidden regime changes, blue ones phase changes, green ones new arms, and R "
         "(or •) a reflection. Under it, which policy played when, in the posteriors table's colours (+ a new arm, "
         "✓ approved, ✗ rejected). {chart.kind} on the focused chart (Tab) shows cumulative reward, then "
         "cumulative regret; {chart.svg} writes it alone as SVG into exports/."),
        ("Reflection",
         "The slow loop. At the end of a slow window the reflector may diagnose what went wrong (a regime label "
         "and a confidence) and prescribe an insight for the agent or a new policy as a new arm. The panel shows "
         "the latest reflection, its evidence and what became of its proposals; {lab.reflections} lists every reflection."),
        ("Memory",
         "The three tiers: episodic (what happened), semantic (patterns distilled from episodes) and procedural "
         "(rules promoted once patterns keep being corroborated). ● marks the entries retrieved for the last "
         "episode; {lab.filter} filters, {lab.tier} switches tier, and the highlighted entry is shown in full below the table."),
        ("Episodes",
         "One line per episode: its phase, the policy played, what the agent did, the outcome (green right, red "
         "wrong) and the reward. Move up to stop following the newest; Enter shows the highlighted one in full "
         "and why it went so (the input, the draws, what each policy would have retrieved, side by side); / "
         "filters it (✗, policy=NAME, regime=N, phase=test, #N to go to episode N, text:WORD in the input: the "
         "ticket, the article, the bar; any other word in the action, outcome or input; \"a phrase\" in quotes)."),
        ("Small terminals",
         "Below 120 columns or 42 rows the lab shows one group of panels at a time (bandit, progress, memory, "
         "episodes): {lab.panels} or a click on the tabs switches. Every key still works from any group."),
    ],
    "Teaching": [
        ("Guided tour ({lab.tour})",
         "Runs the session to the next key moment (a posterior update, a distillation, a reflection, a regime "
         "change, a new arm) and stops there with a card explaining it in this run's numbers. {tour.next} on the card "
         "goes on to the next moment; {tour.close} closes the card and {lab.tour} in the lab carries on."),
        ("Compare ({lab.compare})",
         "The same stream run in lockstep by several selectors you tick (ts, ts+reflection and oracle by default): "
         "their curves on one chart, their posteriors side by side as interval bars, and a timeline of what "
         "happened to whom. Approvals there are automatic; {compare.close} goes back to the lab and {lab.compare} "
         "again returns."),
        ("Exports ({lab.export}, {app.screenshot})",
         "{lab.export} writes the history as CSV (one row per episode) and JSON (with reflections, new arms and decisions); "
         "{app.screenshot} saves an SVG screenshot of the screen for slides. Both go to exports/ (named after the session) unless you name another folder."),
    ],
    "The compare view": [
        ("Progress, every selector",
         "One rolling curve per selector, in its colour, on the same axes and the same stream. Gray lines are "
         "regime changes; a line in a selector's colour is the moment that selector gained an arm."),
        ("Posterior bars",
         "One box per selector: each arm's 90% interval as a line over [0, 1], ● at the mean, then the mean and "
         "the pulls. The subtitle sums up the run so far: the accuracy (or reward), reflections and new arms."),
        ("Which policy played when · mean per regime",
         "A strip per selector, in the arms' colours, and each selector's mean accuracy (or reward) in each true "
         "regime as bars. Below 120×42 they take the posterior bars' place ({compare.pictures}). {chart.kind} on "
         "the focused chart shows cumulative reward, then regret against the oracle (when it runs here)."),
        ("What happened",
         "Regime changes, reflections, insights and new arms in order, each tagged with its selector. This is "
         "where to see when reflection changed something, and what."),
    ],
    "Decisions": [
        ("The approval dialog",
         "A proposal shows what it proposes, then its diagnosis, then its window replayed by the engine with and "
         "without it (filled in once replayed: for an arm the failures it would have fixed and the right answers "
         "it would have broken, for an insight the decisions it would have changed; Tab to the list, Enter opens "
         "an episode in the inspector), then the evidence and the window's numbers. "
         "{approval.approve} approves, {approval.edit} edits the JSON (validated as you type), {approval.reject} "
         "rejects with an optional reason, {approval.always} approves and sets a standing rule for its kind "
         "({lab.rules} lists and revokes rules), {approval.later} leaves it pending (stepping waits), "
         "{approval.batch} decides every pending one at once. Every decision is in the audit log ({lab.audit})."),
        ("Going back ({lab.rewind}, {lab.undo}, {lab.branches})",
         "{lab.rewind} asks for an episode and takes the run back to its start (a click on the progress chart does "
         "too): every panel shows the run as it was there, and stepping on gives the same episodes again, the "
         "run ahead drawn gray on the chart and a yellow line at now. {lab.undo} undoes the last decision: the "
         "run goes back to where it was made and the proposal waits again. Decide otherwise there and the run "
         "takes the other branch; {lab.branches} compares it with the original (curves, posteriors, where they "
         "first differ). ✓ and ✗ on the chart are the decisions; the audit log says what was undone."),
        ("A code policy from a file",
         "A loaded session's Python-code policies are quarantined: the review shows each one's source and SHA-256, "
         "{code_review.admit} admits it (it runs only in a sandboxed worker process), {code_review.reject} rejects "
         "it (its arm is never sampled), {code_review.later} leaves it quarantined (stepping waits). A code policy that fails three calls in a row is "
         "suspended, and says so."),
    ],
}

VARIANT_PANELS = [
    ("Planners (LinUCB)",
     "With --variant planners: one row per planner, each a rule that turns the tools' weighted signals into a view "
     "per ticker. LinUCB learns per planner a θ (the centred reward it expects per context feature, in the columns) "
     "and scores it θ·x plus α times its uncertainty ± at the bar's context x (the last row: trailing return, "
     "volatility change, tool agreement, signal dispersion, drawdown, market trend); the highlighted row played. "
     "A + marks a library planner that reflection added after a planner kept failing."),
    ("Tools",
     "With --variant per-tool: each tool's Beta(α, β) belief that its per-ticker direction is right, the share of "
     "tickers learned after each bar it fed the agent; every episode one draw per tool ('last') and the K highest "
     "among those with a reading at the bar feed the agent (● marks them). With cold-start: each tool's 1-5 rating and the right/wrong pseudo-calls it "
     "put in the agent's reliability prior before episode 0."),
    ("Skills",
     "With --variant skills: every playbook (distilled after a slow window from its successful bars: which tools "
     "were right under the regime label the agent saw) and tool skill (the reversal of a tool that missed for 3 "
     "windows), how often it shaped the agent's tool priors, and the share of those bars that scored above 0. The "
     "highlighted ones shaped the last episode; (gated) ones wait out their poor record (10 uses, success <= 0.45); "
     "20 uses under 0.6 prunes a skill (the caption lists the last pruned)."),
    ("Credit per module",
     "With --variant credit: the last credited bar's share of the outcome per module. uniform: a third each. fcc: "
     "the module's own evidence (struct), what replacing it by its baseline cost (counter) and its exact Shapley "
     "value over the 8 coalitions, whose outcome scores v(S) the caption lists, combined 0.2/0.3/0.5 into g. "
     "llm-fcc: 0.2 evidence + 0.8 the model's credit (offline: the Shapley value rounded to 0.05). The bandit "
     "learns (1 + g memory)/2; 'mean g' is each module's average so far."),
]


def _variants() -> list[tuple[str, str]]:
    """Every registered variant's own paragraph (engine/variants/__init__.py), after its panels."""
    from ael_lab.selectors import VARIANTS, variant_names

    variant_names()  # registers the built-in ones
    return VARIANT_PANELS + [(f"--variant {name}", cls.help) for name, cls in VARIANTS.items() if cls.help]


SCOPE_TITLES = {"app": "Everywhere", "start": "Start screen", "lab": "Lab", "compare": "Compare view",
                "chart": "A focused chart",
                "approval": "Approval dialog", "code_review": "Code review", "editor": "Proposal editor",
                "tour": "Tour card"}


def _prior_methods() -> list[tuple[str, str]]:
    """What each registered prior method keeps and how it differs from AEL (its `help`)."""
    from ael_lab.selectors import METHODS, PriorMethod

    return [(name, cls.help) for name, cls in METHODS.items() if issubclass(cls, PriorMethod) and cls.help]


def _worlds() -> list[tuple[str, str]]:
    """What each registered world teaches, as its spec says (`ScenarioSpec.lesson`)."""
    from ael_lab.worlds import all_specs

    return [(spec.name, spec.lesson) for spec in all_specs() if spec.lesson]


KEY_REF = re.compile(r"\{([a-z_]+\.[a-z_]+)\}")  # {lab.tour}: the key the keymap gives that action


def panels_text(key_for=None) -> Text:
    from ael_tui.actions import BY_ID, key_label
    key_for = key_for or (lambda binding_id: key_label(BY_ID[binding_id].key))

    def keyed(text: str) -> str:
        return KEY_REF.sub(lambda m: key_for(m.group(1)), text)

    out = Text()
    worlds, prior = _worlds(), _prior_methods()
    sections = [*PANELS.items(), *([("What the worlds teach", worlds)] if worlds else []),
                *([("The paper's prior methods (their memory: the memory panel's last tab)", prior)] if prior else []),
                ("Extensions and ablations", _variants())]
    for section, items in sections:
        out.append(f"{section}\n", style="bold underline")
        for name, text in items:
            out.append(f"{keyed(name)}. ", style="bold")
            out.append(keyed(text) + "\n\n")
    return out


def keys_table(keymap: dict[str, str], key_display) -> Table:
    table = Table(box=None, padding=(0, 2), show_edge=False, header_style="bold dim", expand=False)
    for col in ("where", "key", "does"):
        table.add_column(col)
    previous = None
    for a in ACTIONS:
        if a.scope not in SCOPE_TITLES:
            continue
        keys = keymap.get(a.id, a.key)
        shown = ", ".join(key_display(k) for k in keys.split(","))
        table.add_row(SCOPE_TITLES[a.scope] if a.scope != previous else "", shown, a.help)
        previous = a.scope
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = bindings_for("view")

    def __init__(self, keymap: dict[str, str] | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.keymap = keymap or {}

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog big-dialog", id="help") as box:
            box.border_title = "Help: the panels, then every key"
            with VerticalScroll(id="help-body"):
                yield Static(panels_text(getattr(self.app, "key_for", None)), id="help-panels")
                yield Static(Text("Keys (remap them by id in ~/.config/ael-lab/keys.json)", style="bold underline"))
                self.keys = keys_table(self.keymap, self._key_display)
                yield Static(self.keys, id="help-keys")
        yield Footer(compact=True)

    def _key_display(self, key: str) -> str:
        return self.app.get_key_display(Binding(key.strip(), ""))

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)

