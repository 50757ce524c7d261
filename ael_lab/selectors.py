"""What a session plays, as a person types it: the methods (`--selector`, the start screen's
list), the paper's prior methods among them, and the variants (`--variant`), each parsed,
checked against a world and listed for help (docs/api.md, "For the front ends")."""

from __future__ import annotations

from ael_lab._reexport import lazy_names as _lazy_names

_NAMES = {
    "METHODS": "engine.methods:METHODS",
    "parse_method": "engine.methods:parse_method",
    "split_methods": "engine.methods:split_methods",
    "method_help": "engine.methods:method_help",
    "UnknownMethod": "engine.methods:UnknownMethod",
    "unknown_method": "engine.method_base:unknown_method",
    "PriorMethod": "engine.prior:PriorMethod",
    "PriorTable": "engine.prior:Table",
    "is_prior": "engine.prior:is_prior",
    "VARIANTS": "engine.variants:VARIANTS",
    "split_variants": "engine.variants.session_variants:split_variants",
    "check_variants": "engine.variants.session_variants:check_variants",
    "variant_help": "engine.variants.session_variants:variant_help",
    "variant_names": "engine.variants.session_variants:variant_names",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = _lazy_names(__name__, _NAMES)
