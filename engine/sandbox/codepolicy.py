"""Python-code retrieval policies (the paper's RegimeFilteredRetrieval kind).

A code policy is one function over plain data:

    def retrieve(entries, query):
        regime = query.get("regime")
        same = [e for e in entries if e["metadata"].get("regime") == regime]
        return sorted(same, key=lambda e: e["quality"], reverse=True)[:5]

`entries` are memory entries as read-only mappings (id, tier, content,
metadata, quality, episode, ...), `query` is the query's metadata; it returns
a list of entries drawn from `entries`. Every line of such code is hostile:
it comes from a model (prompt-injectable through ticket text or tool output),
from a person's edit, or from a save file someone shared. So it never runs in
the lab's or the CLI's process:

1. `check_source` is a first filter, and fails closed: an AST allow-list of a
   small expression language (one `def retrieve(a, b)`, assignments, `for`,
   `if`, `return`, comprehensions, lambdas, arithmetic, comparisons, calls of
   `SAFE_BUILTINS` and of `ALLOWED_METHODS`), walked without recursion, and a
   tree it cannot walk entirely (too deep, too many nodes, unparsable) is
   refused, never waved through; then RestrictedPython must compile it too.
2. It runs only in a sandboxed worker process (`engine.sandbox.codeworker`,
   `engine.sandbox.child`): RestrictedPython's guards, read-only inputs, no
   environment, no filesystem (Landlock), no new file descriptors or
   processes, capped memory and CPU,
   a wall-clock deadline per call enforced by the parent, which kills the
   worker and all it started on overrun (engine/sandbox/reaper.py).
3. `smoke_test` runs it there, in a worker of its own (killed afterwards, with
   anything it started), on the sample, on the sample repeated up to the
   memory cap and with each distinct metadata of the sample as the query,
   each call within the per-call deadline a live run will give it.
4. A person admits it (and again after every load of a save that holds it).
"""
from __future__ import annotations

import ast
import copy
import hashlib
import json
import math
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from .rules import ALLOWED_METHODS, CALL_DEADLINE_S, SAFE_BUILTINS, CodePolicyError
from ..errors import AELError

MAX_BYTES = 4096
MAX_LINES = 80
MAX_NODES = 1500
MAX_DEPTH = 50           # syntax-tree depth; real policies stay under 20
MAX_CONSTANT = 10**6
MAX_STRING = 200
MAX_EXPONENT = 4
FUNCTION_NAME = "retrieve"

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


# ---------------------------------------------------------------------------
# gate 1: the AST allow-list


def check_source(source: str, name: str = "policy", contract: str = FUNCTION_NAME) -> ast.Module:
    """Parse and vet a code policy (or the code of another `engine.sandbox.contracts` contract:
    the same allow-list, its own function name and parameters); raise `CodePolicyError`
    naming line and reason."""
    from .contracts import contract as find_contract

    wanted = find_contract(contract)
    fn_name = wanted.name
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

    # Size and depth first, and as refusals: a tree that is not walked entirely
    # is not known to be safe (the old gate stopped at depth 100 and let the rest in).
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise refuse(f"the code is too large (more than {MAX_NODES} syntax nodes)")
    walked = list(_walk(tree))
    deepest = max(walked, key=lambda item: item[1])
    if deepest[1] > MAX_DEPTH:
        raise refuse(f"the code is nested more than {MAX_DEPTH} levels deep", deepest[2])

    # Report the problem a reader meets first: earliest in the source, and of
    # nodes that start at the same place, the innermost (`type` before `.mro`).
    problems: list[tuple[tuple[int, int, int], str, ast.AST]] = []
    for node, depth, where in walked:
        why = _why_refused(node, depth, fn_name)
        if why:
            problems.append(((getattr(where, "lineno", 0), getattr(where, "col_offset", 0), -depth), why, where))
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            first = node.decorator_list[0]
            problems.append(((first.lineno, -1, 0), "decorators are not allowed", first))
    if problems:
        _, why, node = min(problems, key=lambda p: p[0])
        more = len(problems) - 1
        raise refuse(why + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""), node)

    body = list(tree.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # a module docstring
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef) or body[0].name != fn_name:
        raise refuse(f"the source must be exactly one function `{wanted.signature}`")
    fn = body[0]
    args = fn.args
    if (len(args.args) != len(wanted.params) or args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg
            or args.defaults or fn.returns is not None or any(a.annotation for a in args.args)):
        count = {1: "one plain argument", 2: "two plain arguments", 3: "three plain arguments"}[len(wanted.params)]
        raise refuse(f"`{fn_name}` takes exactly {count} ({', '.join(wanted.params)})", fn)
    _restricted_compile(source, refuse)
    return tree


def _restricted_compile(source: str, refuse) -> None:
    """The second static check: a maintained restricted compiler must accept it too.
    Compiling runs nothing; the worker compiles the same source the same way."""
    from RestrictedPython import compile_restricted

    try:
        compile_restricted(source, "<policy>", "exec")
    except SyntaxError as exc:
        # its message is a tuple of "Line N: why." texts; the first, in our "line N: why" form
        errors = exc.msg if isinstance(exc.msg, (tuple, list)) else (str(exc.msg or exc),)
        first = str(errors[0]) if errors else "it is not allowed"
        where, _, why = first.partition(": ") if first.startswith("Line ") else ("", "", first)
        where = f"line {where.split()[1]}: " if where else ""
        raise refuse(f"{where}{why.rstrip('.')[:200]} (RestrictedPython)") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise refuse(f"RestrictedPython cannot compile it ({type(exc).__name__})") from None


def _walk(tree: ast.AST):
    """Every node with its depth (the module is 0) and the nearest node that has
    a source position (itself, or for `Del`, `withitem`… its parent). With an
    explicit stack: no recursion limit can cut the walk short."""
    stack = [(tree, 0, tree)]
    while stack:
        node, depth, where = stack.pop()
        where = node if hasattr(node, "lineno") else where
        yield node, depth, where
        stack.extend((child, depth + 1, where) for child in ast.iter_child_nodes(node))


def _why_refused(node: ast.AST, depth: int, fn_name: str = FUNCTION_NAME) -> str:
    """The reason `node` is not allowed, or "" when it is."""
    if not isinstance(node, _NODES):
        return _WHY_NOT.get(type(node), f"{type(node).__name__} is not allowed")
    if isinstance(node, ast.FunctionDef) and depth > 1:
        return "nested functions are not allowed (use a lambda as a sort key)"
    if isinstance(node, ast.Name) and _name_problem(node.id, fn_name):
        return _name_problem(node.id, fn_name)
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
            if _name_problem(func.id, fn_name):  # the more specific reason
                return _name_problem(func.id, fn_name)
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


def _name_problem(name: str, fn_name: str = FUNCTION_NAME) -> str:
    if name.startswith("_"):
        return f"names starting with '_' are not allowed ({name})"
    if name in FORBIDDEN_NAMES:
        return f"{name} is not allowed"
    if name == fn_name:
        return f"`{fn_name}` may not refer to itself"
    return ""


# ---------------------------------------------------------------------------
# the smoke test, in a sandboxed worker of its own


@dataclass(frozen=True)
class SmokeResult:
    """What the smoke test saw: result sizes on the sample and on the scaled sample."""

    sample_size: int
    scaled_size: int
    returned: tuple[int, int]


def smoke_test(source: str, entries: list[dict[str, Any]], query: dict[str, Any], *, name: str = "policy",
               deadline_s: float = CALL_DEADLINE_S, memory_mb: int = 256, scale_to: int = 1500) -> SmokeResult:
    """Run a vetted policy in a fresh sandboxed worker, each call within `deadline_s`.

    It runs on `entries`, on `entries` repeated up to `scale_to` (give the memory
    cap of the tiers it reads: no live call sees more), and with each distinct
    metadata of the sample as the query; the worker and all it started are killed
    afterwards. Raises `CodePolicyError` with the reason when a call overruns,
    crashes, or returns anything but a list of the entries it was given.
    """
    from .codeworker import CodePolicyFailure, CodeWorker, Limits

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
    query = _plain(query, name)
    runs = [(entry_rows(sample), query), (entry_rows(scaled), query)] + [(entry_rows(sample), q) for q in queries]
    key = source_hash(source)
    worker = CodeWorker(Limits(memory_mb=memory_mb))
    sizes = []
    try:
        for rows, q in runs:
            sizes.append(len(worker.call(key, source, rows, q, deadline_s)))
    except CodePolicyFailure as failure:
        what = f"on {len(rows)} entries" if rows else "on no entries"
        raise CodePolicyError(f"code policy {name!r} refused: the smoke test failed {what}: {failure}") from None
    finally:
        worker.close()  # the worker and anything the policy started, wherever it went
    return SmokeResult(len(sample), len(scaled), (sizes[0], sizes[1]))


def _repeats(n: int, target: int) -> int:
    return 0 if n == 0 else max(1, target // n)


def _plain(value: Any, name: str) -> Any:
    """The JSON-able copy of sample data (what the worker receives)."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        raise CodePolicyError(f"code policy {name!r}: the sample entries and query must be plain JSON data") from None


def entry_rows(entries: list[Any]) -> list[SimpleNamespace]:
    """Sample dicts as the entry objects the worker reads (the fields of a MemoryEntry)."""
    rows = []
    for i, e in enumerate(entries):
        e = e if isinstance(e, dict) else {}
        meta = e.get("metadata")
        rows.append(SimpleNamespace(
            id=str(e.get("id", f"entry{i}")), tier=str(e.get("tier", "episodic")), content=str(e.get("content", "")),
            metadata=meta if isinstance(meta, dict) else {}, quality=e.get("quality", 0.0),
            episode=e.get("episode", 0), retrieval_count=e.get("retrieval_count", 0),
            usefulness=e.get("usefulness", 0.0)))
    return rows


def source_hash(source: str) -> str:
    """SHA-256 of the source text (UTF-8): what a person approves, and the audit log records."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------
# a vetted policy: data only, never run here


@dataclass(frozen=True)
class CodePolicy:
    """A code policy that passed the static filter. Building one runs nothing;
    `engine.sandbox.codearms` runs it in the session's sandboxed worker."""

    name: str
    source: str
    description: str = ""

    def __post_init__(self) -> None:
        check_source(self.source, self.name)

    @property
    def sha256(self) -> str:
        return source_hash(self.source)

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
                       *, description: str = "", deadline_s: float = CALL_DEADLINE_S, memory_mb: int = 256,
                       scale_to: int = 1500) -> CodePolicy:
    """Both gates for a proposed code policy: the static filter, then the smoke
    test. What comes back may be shown to a person for approval; it is not
    approved by passing."""
    policy = CodePolicy.from_dict({"kind": "code", "name": name, "source": source, "description": description})
    smoke_test(source, sample_entries, sample_query, name=name, deadline_s=deadline_s, memory_mb=memory_mb,
               scale_to=scale_to)
    return policy


# ---------------------------------------------------------------------------
# the other contracts (engine/sandbox/contracts.py): allocate, plan


def smoke_test_function(source: str, contract_name: str, *, name: str = "code", deadline_s: float = CALL_DEADLINE_S,
                        memory_mb: int = 256) -> int:
    """Vet `source` for the contract and run it on the contract's samples in a fresh
    sandboxed worker (killed afterwards), each call within `deadline_s` and each
    answer checked as a live one will be. Returns the number of calls; raises
    `CodePolicyError` saying why it was refused."""
    from .contracts import contract
    from .codeworker import CodePolicyFailure, CodeWorker, Limits

    wanted = contract(contract_name)
    check_source(source, name, contract_name)
    worker = CodeWorker(Limits(memory_mb=memory_mb))
    samples = wanted.samples()
    try:
        for args in samples:
            wanted.check(worker.call_function(source_hash(source), source, wanted.name, args, deadline_s), args)
    except CodePolicyFailure as failure:
        raise CodePolicyError(f"{contract_name} code {name!r} refused: the smoke test failed: {failure}") from None
    except CodePolicyError as err:  # it answered, but not what the contract takes
        raise CodePolicyError(f"{contract_name} code {name!r} refused: the smoke test failed: {err}") from None
    finally:
        worker.close()
    return len(samples)
