"""What a person reviews and decides: a proposal and the reflection that made it, the audit
log's entries and standing rules, a pending proposal's window replayed with and without it,
model-written code and its hash, and an episode explained (docs/api.md, "For the front ends").
A script decides with `Session.approve`, `reject`, `edit` and reads `Session.explain`."""

from __future__ import annotations

from ael_lab._reexport import lazy_names as _lazy_names

_NAMES = {
    "Proposal": "engine.approvals:Proposal",
    "AuditEntry": "engine.approvals:AuditEntry",
    "StandingRule": "engine.approvals:StandingRule",
    "Reflection": "engine.reflection:Reflection",
    "PolicySpec": "engine.policies:PolicySpec",
    "owned_code": "engine.proposers:owned_code",
    "source_hash": "engine.sandbox.codepolicy:source_hash",
    "Preview": "engine.preview:Preview",
    "Replayed": "engine.preview:Replayed",
    "preview": "engine.preview:preview",
    "window_of": "engine.preview:window_of",
    "explain": "engine.explain:explain",
    "explain_basis": "engine.explain:basis",
    "explain_from": "engine.explain:explain_from",
    "render_explanation": "engine.explain:render",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)
