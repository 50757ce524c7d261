"""Python-code retrieval policies (the paper's RegimeFilteredRetrieval kind).

A code policy is one function over plain data:

    def retrieve(entries, query):
        regime = query.get("regime")
        same = [e for e in entries if e["metadata"].get("regime") == regime]
        return sorted(same, key=lambda e: e["quality"], reverse=True)[:5]

`entries` are memory entries as dicts (id, tier, content, metadata, quality,
episode, ...), `query` is the query's metadata; it returns a list of entries
drawn from `entries`. Such code comes from a model, so before a person is even
asked to approve it, it passes two gates:

1. `check_source`: an AST allow-list. Only a small expression language is
   accepted: one `def retrieve(a, b)`, assignments, `for`, `if`, `return`,
   comprehensions, lambdas, arithmetic and comparisons, calls of a few safe
   builtins (`SAFE_BUILTINS`) and of a few container/string methods
   (`ALLOWED_METHODS`). Everything else is refused with the line and the
   reason: imports, `while`, `try`, `with`, classes, `global`, decorators,
   f-strings, names or attributes that start with `_`, strings containing
   `__`, bit shifts, big constants and exponents, and any call of a name
   that is not a safe builtin (so no recursion and no `getattr`/`eval`).
2. `smoke_test`: the function runs in a separate Python process with an
   address-space limit (RLIMIT_AS), a CPU limit, no file writes and a
   wall-clock timeout, on the sample and on the sample scaled up to a few
   hundred entries (a blow-up that grows with memory size shows there, not
   in the lab's process), and once with each distinct metadata of the
   sample as the query (code that misbehaves for one regime only).

An approved `CodePolicy` then runs in-process, compiled against a namespace
whose only builtins are `SAFE_BUILTINS`, on deep copies of the entries (the
code cannot change memory); what it returns is mapped back to the originals.
What remains possible is slowness on inputs much larger than the scaled
sample; the person who approves is the last gate.
"""

from __future__ import annotations

import ast
import builtins
import copy
import json
import math
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from .errors import AELError

MAX_BYTES = 4096
MAX_LINES = 80
MAX_NODES = 1500
MAX_CONSTANT = 10**6
MAX_STRING = 200
MAX_EXPONENT = 4
FUNCTION_NAME = "retrieve"

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
# Never reachable anyway (not in SAFE_BUILTINS), named so the refusal says why.
FORBIDDEN_NAMES = frozenset({
    "exec", "eval", "compile", "open", "getattr", "setattr", "delattr", "hasattr", "globals",
    "locals", "vars", "dir", "input", "breakpoint", "help", "type", "object", "super", "print",
    "memoryview", "bytearray", "bytes", "classmethod", "staticmethod", "property", "exit", "quit",
    "format", "iter", "next", "id", "hash", "callable", "isinstance", "issubclass", "map", "filter",
})

_NODES: tuple[type[ast.AST], ...] = (
    ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Assign, ast.AugAssign,
    ast.For, ast.If, ast.Break, ast.Continue, ast.Pass, ast.Expr, ast.Name, ast.Load, ast.Store,
    ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp,
    ast.GeneratorExp, ast.comprehension, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp,
    ast.Call, ast.keyword, ast.Attribute, ast.Subscript, ast.Slice, ast.Lambda,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.USub, ast.UAdd, ast.Not,
    ast.And, ast.Or, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn,
    ast.Is, ast.IsNot,
)
_WHY_NOT = {
    ast.Import: "imports are not allowed", ast.ImportFrom: "imports are not allowed",
    ast.While: "while loops are not allowed (loop over the entries with for)",
    ast.Try: "try/except is not allowed", ast.With: "with is not allowed",
    ast.ClassDef: "classes are not allowed", ast.Global: "global is not allowed",
    ast.Nonlocal: "nonlocal is not allowed", ast.Delete: "del is not allowed",
    ast.JoinedStr: "f-strings are not allowed", ast.Raise: "raise is not allowed",
    ast.Assert: "assert is not allowed", ast.NamedExpr: "the walrus operator is not allowed",
    ast.Yield: "generators are not allowed", ast.YieldFrom: "generators are not allowed",
    ast.Await: "async code is not allowed", ast.AsyncFunctionDef: "async code is not allowed",
    ast.Starred: "star-unpacking is not allowed", ast.LShift: "bit shifts are not allowed",
    ast.RShift: "bit shifts are not allowed", ast.FormattedValue: "f-strings are not allowed",
    ast.withitem: "with is not allowed", ast.Del: "del is not allowed",
    ast.BitAnd: "bitwise operators are not allowed", ast.BitOr: "bitwise operators are not allowed",
    ast.BitXor: "bitwise operators are not allowed", ast.Invert: "bitwise operators are not allowed",
    ast.MatMult: "@ is not allowed",
}


class CodePolicyError(AELError):
    """A code policy was refused, or failed while running on real entries."""


# ---------------------------------------------------------------------------
# gate 1: the AST allow-list


def check_source(source: str, name: str = "policy") -> ast.Module:
    """Parse and vet a code policy; raise `CodePolicyError` naming line and reason."""
    def refuse(why: str, node: ast.AST | None = None) -> CodePolicyError:
        where = f"line {node.lineno}: " if node is not None and hasattr(node, "lineno") else ""
        return CodePolicyError(f"code policy {name!r} refused: {where}{why}")

    if not isinstance(source, str) or not source.strip():
        raise refuse("the source is empty")
    if len(source.encode("utf-8")) > MAX_BYTES:
        raise refuse(f"the source is longer than {MAX_BYTES} bytes")
    if source.count("\n") + 1 > MAX_LINES:
        raise refuse(f"the source is longer than {MAX_LINES} lines")
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as exc:
        raise CodePolicyError(f"code policy {name!r} refused: line {exc.lineno}: syntax error: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise refuse(f"the source cannot be parsed ({type(exc).__name__})") from None

    # Report the problem a reader meets first: earliest in the source, and of
    # nodes that start at the same place, the innermost (`type` before `.mro`).
    problems: list[tuple[tuple[int, int, int], str, ast.AST]] = []
    for node, depth, where in _walk(tree, 0, tree):
        if len(problems) > MAX_NODES or depth > 100:
            break
        why = _why_refused(node, depth)
        if why:
            problems.append(((getattr(where, "lineno", 0), getattr(where, "col_offset", 0), -depth), why, where))
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            first = node.decorator_list[0]
            problems.append(((first.lineno, -1, 0), "decorators are not allowed", first))
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise refuse(f"the code is too large (more than {MAX_NODES} syntax nodes)")
    if problems:
        _, why, node = min(problems, key=lambda p: p[0])
        more = len(problems) - 1
        raise refuse(why + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""), node)

    body = list(tree.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # a module docstring
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef) or body[0].name != FUNCTION_NAME:
        raise refuse(f"the source must be exactly one function `def {FUNCTION_NAME}(entries, query)`")
    fn = body[0]
    args = fn.args
    if (len(args.args) != 2 or args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg
            or args.defaults or fn.returns is not None or any(a.annotation for a in args.args)):
        raise refuse(f"`{FUNCTION_NAME}` takes exactly two plain arguments (entries, query)", fn)
    return tree


def _walk(node: ast.AST, depth: int, where: ast.AST):
    """Every node with its depth (the module is 0) and the nearest node that
    has a source position (itself, or for `Del`, `withitem`… its parent)."""
    where = node if hasattr(node, "lineno") else where
    yield node, depth, where
    for child in ast.iter_child_nodes(node):
        yield from _walk(child, depth + 1, where)


def _why_refused(node: ast.AST, depth: int) -> str:
    """The reason `node` is not allowed, or "" when it is."""
    if not isinstance(node, _NODES):
        return _WHY_NOT.get(type(node), f"{type(node).__name__} is not allowed")
    if isinstance(node, ast.FunctionDef) and depth > 1:
        return "nested functions are not allowed (use a lambda as a sort key)"
    if isinstance(node, ast.Name) and _name_problem(node.id):
        return _name_problem(node.id)
    if isinstance(node, ast.arg) and node.arg.startswith("_"):
        return f"names starting with '_' are not allowed ({node.arg})"
    if isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            return f"attributes starting with '_' are not allowed (.{node.attr})"
        if not isinstance(node.ctx, ast.Load):
            return "assigning to attributes is not allowed"
        if node.attr not in ALLOWED_METHODS:
            return f".{node.attr} is not an allowed method (allowed: {', '.join(sorted(ALLOWED_METHODS))})"
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id not in SAFE_BUILTINS:
            if _name_problem(func.id):  # the more specific reason
                return _name_problem(func.id)
            return f"calling {func.id}() is not allowed (callable: {', '.join(SAFE_BUILTINS)} and methods)"
        if not isinstance(func, (ast.Name, ast.Attribute)):
            return "only builtins and methods may be called"
        if any(k.arg is None for k in node.keywords):
            return "**keyword unpacking is not allowed"
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, str):
            if "__" in value:
                return "strings containing '__' are not allowed"
            if len(value) > MAX_STRING:
                return f"string constants longer than {MAX_STRING} characters are not allowed"
        elif isinstance(value, bool) or value is None:
            pass
        elif isinstance(value, (int, float)):
            if not math.isfinite(value) or abs(value) > MAX_CONSTANT:
                return f"numbers beyond ±{MAX_CONSTANT} are not allowed"
        else:
            return f"{type(value).__name__} constants are not allowed"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        exp = node.right
        if not (isinstance(exp, ast.Constant) and isinstance(exp.value, (int, float))
                and not isinstance(exp.value, bool) and 0 <= exp.value <= MAX_EXPONENT):
            return f"** needs a constant exponent between 0 and {MAX_EXPONENT}"
    if isinstance(node, ast.Lambda) and (node.args.defaults or node.args.kw_defaults or node.args.vararg
                                         or node.args.kwarg or node.args.kwonlyargs or node.args.posonlyargs):
        return "lambdas take plain arguments only"
    if isinstance(node, ast.comprehension) and node.is_async:
        return "async code is not allowed"
    return ""


def _name_problem(name: str) -> str:
    if name.startswith("_"):
        return f"names starting with '_' are not allowed ({name})"
    if name in FORBIDDEN_NAMES:
        return f"{name} is not allowed"
    if name == FUNCTION_NAME:
        return f"`{FUNCTION_NAME}` may not refer to itself"
    return ""


# ---------------------------------------------------------------------------
# gate 2: the smoke test in a separate, limited process

# Runs with `python -I -S`: no site-packages, no environment, no engine import.
_CHILD = r"""
import json, resource, sys
payload = json.loads(sys.stdin.read())
limit = payload["memory_mb"] * 1024 * 1024
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
resource.setrlimit(resource.RLIMIT_CPU, (payload["cpu_s"], payload["cpu_s"]))
resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
import builtins
safe = {n: getattr(builtins, n) for n in payload["builtins"]}
def report(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()
try:
    namespace = {"__builtins__": safe}
    exec(compile(payload["source"], "<policy>", "exec"), namespace)
    fn = namespace["retrieve"]
    sizes = []
    runs = [(payload["sample"], payload["query"]), (payload["scaled"], payload["query"])]
    runs += [(payload["sample"], q) for q in payload["queries"]]
    for entries, query in runs:
        out = fn(entries, query)
        if not isinstance(out, list):
            report(ok=False, error="it must return a list, not %s" % type(out).__name__)
            raise SystemExit(0)
        ids = {id(e) for e in entries}
        if not all(id(x) in ids for x in out):
            report(ok=False, error="it must return entries taken from `entries`, not new objects")
            raise SystemExit(0)
        sizes.append(len(out))
    report(ok=True, sizes=sizes[:2])
except MemoryError:
    report(ok=False, error="memory")
except RecursionError:
    report(ok=False, error="it recursed too deeply")
except Exception as exc:
    report(ok=False, error="%s: %s" % (type(exc).__name__, str(exc)[:200]))
"""


@dataclass(frozen=True)
class SmokeResult:
    """What the smoke test saw: result sizes on the sample and on the scaled sample."""

    sample_size: int
    scaled_size: int
    returned: tuple[int, int]


def smoke_test(source: str, entries: list[dict[str, Any]], query: dict[str, Any], *, name: str = "policy",
               time_limit_s: float = 2.0, memory_mb: int = 256, scale_to: int = 300) -> SmokeResult:
    """Run a vetted policy in a child process under time and memory limits.

    It runs on `entries` and on `entries` repeated up to `scale_to`; raises
    `CodePolicyError` with the reason when it overruns, crashes, or returns
    anything but a list of the entries it was given.
    """
    check_source(source, name)
    sample = _plain(entries, name)
    scaled = [dict(e, id=f"{e.get('id', 'entry')}~{i}") for i in range(_repeats(len(sample), scale_to))
              for e in copy.deepcopy(sample)]
    # Also ask with each distinct metadata of the sample as the query: code
    # that misbehaves only for some regime or ticker should show it here.
    queries = []
    for e in sample:
        meta = e.get("metadata") if isinstance(e, dict) else None
        if isinstance(meta, dict) and meta not in queries and len(queries) < 8:
            queries.append(meta)
    payload = json.dumps({
        "source": source, "sample": sample, "scaled": scaled, "query": _plain(query, name), "queries": queries,
        "builtins": list(SAFE_BUILTINS), "memory_mb": int(memory_mb), "cpu_s": max(1, math.ceil(time_limit_s)),
    })
    refused = f"code policy {name!r} refused: the smoke test"
    try:
        done = subprocess.run([sys.executable, "-I", "-S", "-X", "utf8", "-c", _CHILD], input=payload,
                              capture_output=True, text=True, timeout=time_limit_s, env={})
    except subprocess.TimeoutExpired:
        raise CodePolicyError(
            f"{refused} did not finish within {time_limit_s:g} s (an endless or huge loop?)") from None
    lines = done.stdout.strip().splitlines()
    try:
        verdict = json.loads(lines[-1]) if lines else None
    except ValueError:
        verdict = None
    if not isinstance(verdict, dict):
        if done.returncode < 0:
            raise CodePolicyError(f"{refused} process was killed by signal {-done.returncode} "
                                  "(over its CPU or memory limit)")
        raise CodePolicyError(f"{refused} process ended without a verdict (exit code {done.returncode})")
    if not verdict.get("ok"):
        error = str(verdict.get("error", "unknown failure"))
        if error == "memory":
            error = f"ran out of its {memory_mb} MB memory limit"
        raise CodePolicyError(f"{refused} failed: {error}")
    sizes = verdict.get("sizes", [0, 0])
    return SmokeResult(len(sample), len(scaled), (int(sizes[0]), int(sizes[1])))


def _repeats(n: int, target: int) -> int:
    return 0 if n == 0 else max(1, target // n)


def _plain(value: Any, name: str) -> Any:
    """The JSON-able copy of sample data (what the child process receives)."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        raise CodePolicyError(f"code policy {name!r}: the sample entries and query must be plain JSON data") from None


# ---------------------------------------------------------------------------
# an approved policy, run in-process


@dataclass(frozen=True)
class CodePolicy:
    """A vetted code policy, ready to run on real entries.

    Build it with `review_code_policy` (both gates) for a new proposal, or
    `from_dict` (the AST gate again) when loading a saved session.
    """

    name: str
    source: str
    description: str = ""
    _fn: Callable[..., Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        tree = check_source(self.source, self.name)
        namespace: dict[str, Any] = {"__builtins__": {n: getattr(builtins, n) for n in SAFE_BUILTINS}}
        exec(compile(tree, f"<code policy {self.name}>", "exec"), namespace)  # noqa: S102 - vetted above
        object.__setattr__(self, "_fn", namespace[FUNCTION_NAME])

    def retrieve(self, entries: list[dict[str, Any]], query: dict[str, Any]) -> list[dict[str, Any]]:
        """The entries the policy picks, as the original objects, in its order.

        The code sees deep copies, so it cannot change memory. Raises
        `CodePolicyError` when it fails or returns something else than
        entries it was given; the caller decides what to fall back on.
        """
        copies = copy.deepcopy(entries)
        position = {id(c): i for i, c in enumerate(copies)}
        try:
            out = self._fn(copies, copy.deepcopy(query))
        except Exception as exc:  # the policy's bug, reported as data, not a crash of the lab
            raise CodePolicyError(f"code policy {self.name!r} failed: {type(exc).__name__}: {exc}") from None
        if not isinstance(out, list) or not all(id(x) in position for x in out):
            raise CodePolicyError(f"code policy {self.name!r} must return a list of the entries it was given")
        return [entries[position[id(x)]] for x in out]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "code", "name": self.name, "source": self.source, "description": self.description}

    @classmethod
    def from_dict(cls, raw: Any) -> "CodePolicy":
        if not isinstance(raw, dict) or raw.get("kind") != "code" or not isinstance(raw.get("name"), str):
            raise CodePolicyError("code policy: expected {'kind': 'code', 'name': ..., 'source': ...}")
        name = raw["name"]
        if not name or not name.replace("_", "").replace("-", "").isalnum():
            raise CodePolicyError("code policy field 'name': must be a non-empty identifier (letters, digits, _ or -)")
        return cls(name, raw.get("source", ""), str(raw.get("description", "")))


def review_code_policy(name: str, source: str, sample_entries: list[dict[str, Any]], sample_query: dict[str, Any],
                       *, description: str = "", time_limit_s: float = 2.0, memory_mb: int = 256) -> CodePolicy:
    """Both gates for a proposed code policy: the AST allow-list, then the smoke
    test. What comes back may be shown to a person for approval; it is not
    approved by passing."""
    policy = CodePolicy.from_dict({"kind": "code", "name": name, "source": source, "description": description})
    smoke_test(source, sample_entries, sample_query, name=name, time_limit_s=time_limit_s, memory_mb=memory_mb)
    return policy
