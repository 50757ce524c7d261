"""The latest reflection: diagnosis, regime label and confidence, the insight in use."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from ael_lab.review import Reflection
from ael_lab.text import shown, shown_lines

from ael_tui.widgets.evidence import evidence_text


def reflection_text(r: Reflection, index: int, decisions: list[str] | None = None) -> Text:
    text = Text.assemble(
        (f"Reflection #{index + 1}", "bold"), f" · after episode {r.episode} · trigger {r.trigger} · {r.source}\n",
        ("Diagnosis: ", "bold"), shown_lines(r.diagnosis), "\n",  # a model's words, or the data's
    )
    if r.regime_label:  # without a label its confidence is not about anything ("—, confidence 1.00")
        text.append_text(Text.assemble(("Regime: ", "bold"), (shown(r.regime_label), "magenta"),
                                       f" · confidence {r.confidence:.2f}\n"))
    elif not r.insight and r.policy is None:
        text.append("Proposes nothing.\n", style="dim")
    if r.insight:
        text.append_text(Text.assemble(("Proposed insight: ", "bold"), shown_lines(r.insight), "\n"))
    if r.policy is not None:
        text.append_text(Text.assemble(("Proposed policy: ", "bold"), shown(r.policy.get("name", "?")), "\n"))
    if r.evidence:
        text.append("Evidence:\n", style="bold")
        text.append_text(evidence_text(r.evidence, limit=4))
    for d in decisions or []:
        text.append(f"  → {shown(d)}\n", style="italic")
    return text


class ReflectionPanel(Static):
    _shown: Text | None = None
    _shown_for: tuple | None = None  # what `_shown` was built from

    def _key(self, binding_id: str) -> str:
        from ael_tui.actions import BY_ID, key_label
        key_for = getattr(self.app, "key_for", None)
        return key_for(binding_id) if key_for else key_label(BY_ID[binding_id].key)

    def show(self, reflections: list[Reflection], insight: dict[str, Any] | None, decisions: list[str],
             outlook: str = "") -> None:
        """`outlook`: when the reflector will next consider a proposal, if it is waiting (a cool-down)."""
        last = reflections[-1] if reflections else None
        if self._shown_for is not None:  # (most steps change none of it: the text is not built again)
            n, was_last, was_insight, was_decisions, was_outlook = self._shown_for
            if n == len(reflections) and was_last is last and was_insight == insight \
                    and was_decisions == decisions and was_outlook == outlook:
                return
        self._shown_for = (len(reflections), last, dict(insight) if insight else insight, list(decisions), outlook)
        text = Text()
        if outlook:
            text.append(outlook + "\n", style="bold yellow")
        if insight:
            text.append_text(Text.assemble(
                ("Insight in use", "bold green"), f" (since episode {insight.get('episode', '?')}): ",
                shown_lines(insight.get("insight", "")), "\n"))
        else:
            text.append("No insight in use.\n", style="dim")
        if reflections:
            text.append_text(reflection_text(reflections[-1], len(reflections) - 1, decisions))
            if len(reflections) > 1:
                text.append(f"{len(reflections) - 1} earlier reflection(s): press {self._key('lab.reflections')}\n",
                            style="dim")
        else:
            text.append(f"No reflection yet: {self._key('lab.each_reflection')} runs to the next one, "
                        f"{self._key('lab.reflection')} to the next that proposes something.", style="dim")
        if text != self._shown:  # an update is a layout pass: only when something changed
            self._shown = text
            self.update(text)
