"""What every part of code-policy handling agrees on, in a module that imports
nothing of theirs: the vetting (codepolicy), the sandboxed worker (codeworker)
and a session's code arms (codearms) all read these, so none of them has to
import another just for a constant, and the three stay free of import cycles.
"""

from __future__ import annotations

from ..errors import AELError

CALL_DEADLINE_S = 0.5    # wall clock per call of a policy, smoke test and live run alike

# What policy code may call: the builtins by name, the methods by attribute.
# The worker's RestrictedPython guard is configured from the same two lists.
SAFE_BUILTINS: tuple[str, ...] = (
    "len", "sorted", "min", "max", "sum", "range", "enumerate", "list", "dict", "set", "tuple",
    "abs", "round", "zip", "any", "all", "float", "int", "str", "bool", "reversed",
)
ALLOWED_METHODS = frozenset({
    # dict
    "get", "items", "keys", "values", "setdefault",
    # list / set
    "append", "extend", "insert", "index", "count", "sort", "reverse", "copy", "add",
    "union", "intersection", "difference",
    # str (not format / format_map: their mini-language reads attributes)
    "lower", "upper", "strip", "lstrip", "rstrip", "split", "startswith", "endswith", "join",
    "replace", "find",
})


class CodePolicyError(AELError):
    """A code policy was refused, or failed while running on real entries."""
