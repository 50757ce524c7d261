"""A fake LLM server on 127.0.0.1 that speaks just enough of three APIs for
the real SDKs to talk to it:

- Anthropic Messages: POST /v1/messages
- Gemini generateContent: POST /{v1,v1beta}/models/{model}:generateContent
- OpenAI chat completions: POST /v1/chat/completions

Tests script what it does next (`server.script(ok(...), rate_limited(2), ...)`);
when the script is empty it falls back to its mode: `echo` answers every
request with an object built from the JSON schema the client embedded in its
prompt (between <json-schema> and </json-schema>), `fail` answers 500. Every
request is kept in `server.requests` (headers included, so a test can check
the key was sent, and then that it appears nowhere else).

Structured output is checked per API: a request without the reply's schema
in the provider's own field (Anthropic: a forced tool's `input_schema`;
Gemini: `generationConfig.responseJsonSchema`; OpenAI: `response_format`'s
`json_schema.schema` or llama.cpp's `schema`) is refused with a 400 (counted
in `missing_schema`); `reject_formats` plays a server that refuses some
`response_format` types with a 500, as llama-cpp-python's does `json_schema`.
An Anthropic request with a forced tool gets its answer as a `tool_use` block
when the answer is a JSON object, as the real API does.

By hand:  python -m tests.fake_llm_server --port 8765 --mode echo [--context 2048]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

from engine.llm.prompt import SCHEMA_CLOSE, SCHEMA_OPEN
from engine.llm.schema import example_for

MAX_BODY = 2_000_000
GEMINI_PATH = re.compile(r"^/(v1|v1beta|v1alpha)/models/([^/:]+):generateContent$")


@dataclass(frozen=True)
class Behaviour:
    """What the server does with one request.

    kind: `ok` (answer `text` as the model's reply), `echo` (answer from
    the request's schema, as the `echo` mode does), `status` (an API error
    with `status`, `headers` and, if given, `text` as its message), `raw`
    (send `text` as the whole HTTP body with `status`: an empty, non-JSON or
    wrongly shaped 200), `hang` (say nothing for `seconds`). `cut` marks an
    `ok` reply as stopped at max_tokens.
    """

    kind: str
    text: str = ""
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    cut: bool = False


def ok(data: Any) -> Behaviour:
    """A reply whose text is `data` (a str as is, anything else as JSON)."""
    return Behaviour("ok", data if isinstance(data, str) else json.dumps(data))


def echo(quote: str = "") -> Behaviour:
    """What the `echo` mode answers: a valid object for the request's schema;
    with `quote`, every free-text field says it (a model repeating a key it saw)."""
    return Behaviour("echo", quote)


def raw_body(body: str | bytes = "", status: int = 200) -> Behaviour:
    """The whole HTTP body as given, whatever the API: b"" is an empty 200,
    "<html>..." a non-JSON one, '{"x": 1}' a JSON one in the wrong envelope."""
    return Behaviour("raw", body.decode("latin-1") if isinstance(body, bytes) else body, status=status)


def not_json(text: str = "Sure! Here is what I found: the regime changed.") -> Behaviour:
    return Behaviour("ok", text)


def schema_invalid(data: Any = None) -> Behaviour:
    """Valid JSON that (for the tests' schemas) breaks the schema."""
    return ok({"unexpected": "shape"} if data is None else data)


def cut_off(text: str = '{"regime": "sto') -> Behaviour:
    """A reply that stopped at max_tokens, mid-JSON."""
    return Behaviour("ok", text, cut=True)


def rate_limited(retry_after: float | str | None = 1) -> Behaviour:
    headers = (("retry-after", str(retry_after)),) if retry_after is not None else ()
    return Behaviour("status", status=429, headers=headers)


def server_error(status: int = 500) -> Behaviour:
    return Behaviour("status", status=status)


def error(status: int, message: str = "") -> Behaviour:
    """An API error with the given status and message (e.g. a 401 that quotes the key)."""
    return Behaviour("status", text=message, status=status)


def trickle(seconds: float = 3.0) -> Behaviour:
    """A valid answer whose body arrives a byte every 50 ms for `seconds`: no
    single read waits long, the whole reply never comes in time."""
    return Behaviour("trickle", seconds=seconds)


def hang(seconds: float = 2.0) -> Behaviour:
    """Keep the client waiting (bounded by the server's `max_hang_s`)."""
    return Behaviour("hang", seconds=seconds)


@dataclass
class SeenRequest:
    method: str
    path: str
    api: str                      # anthropic | gemini | openai | unknown
    headers: dict[str, str]
    body: Any
    raw: str = field(repr=False, default="")


class FakeLLMServer:
    """A threaded HTTP server on 127.0.0.1 (port 0 picks a free one).

    Use as a context manager; leaving it stops the server and ends any hang.

    `context_tokens` makes it a small local model: a chat completion whose
    prompt plus `max_tokens` exceeds it is refused with HTTP 400 and the
    wording of OpenAI-compatible servers (counted in `over_context`), and
    `GET /props` (llama.cpp) and `GET /v1/models` (vLLM) report it unless
    `report_context` is False. Its token count is stricter than real
    tokenizers: 3.2 characters a token plus 4 a message.
    """

    def __init__(self, mode: str = "echo", port: int = 0, max_hang_s: float = 5.0,
                 context_tokens: int | None = None, report_context: bool = True,
                 require_schema: bool = True, reject_formats: tuple[str, ...] = ()) -> None:
        if mode not in ("echo", "fail"):
            raise ValueError(f"mode {mode!r}: expected echo or fail")
        self.mode = mode
        self.max_hang_s = max_hang_s
        self.context_tokens = context_tokens
        self.report_context = report_context
        self.over_context = 0
        self.require_schema = require_schema
        self.reject_formats = reject_formats
        self.missing_schema = 0
        self.requests: list[SeenRequest] = []
        self.log: list[str] = []
        self._script: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._count = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._httpd.daemon_threads = True  # a hung handler must not block shutdown
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, *behaviours: Behaviour) -> None:
        """Queue what the next requests get, in order."""
        with self._lock:
            self._script.extend(behaviours)

    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    def start(self) -> "FakeLLMServer":
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01},
                                        name="fake-llm-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()

    def __enter__(self) -> "FakeLLMServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- used by the handler ---------------------------------------------
    def _note(self, seen: SeenRequest) -> None:
        with self._lock:
            self.requests.append(seen)

    def _next(self, seen: SeenRequest) -> tuple[Behaviour, int]:
        with self._lock:
            self.requests.append(seen)
            self._count += 1
            if self._script:
                return self._script.popleft(), self._count
        if self.mode == "fail":
            return server_error(500), self._count
        return Behaviour("ok", json.dumps(_echo_answer(seen.body))), self._count


def _echo_answer(body: Any, quote: str = "") -> Any:
    """An object shaped by the schema embedded in the request, if any; with `quote`,
    every free-text field says it (cut to the field's maxLength, as a model must)."""
    for text in _strings(body):
        start = text.find(SCHEMA_OPEN)
        end = text.find(SCHEMA_CLOSE, start + 1)
        if start >= 0 and end > start:
            try:
                schema = json.loads(text[start + len(SCHEMA_OPEN):end])
                return _quoted(example_for(schema), schema, quote) if quote else example_for(schema)
            except (ValueError, KeyError, TypeError, AttributeError):
                break
    return {"echo": True}


def _quoted(value: Any, schema: dict[str, Any], quote: str) -> Any:
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return {k: _quoted(v, props.get(k, {}), quote) for k, v in value.items()}
    if isinstance(value, list):
        return [_quoted(v, schema.get("items", {}), quote) for v in value]
    if isinstance(value, str) and "enum" not in schema:
        return quote[:schema.get("maxLength", len(quote))]
    return value


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if depth > 20:  # bounded: request bodies are shallow
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, depth + 1)


def _handler_for(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes; no 40 ms delayed-ACK stall

        def log_message(self, fmt: str, *args: Any) -> None:  # keep test output clean
            server.log.append(fmt % args)

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            length = min(int(self.headers.get("content-length") or 0), MAX_BODY)
            raw = self.rfile.read(length).decode("utf-8", "replace")
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            path = self.path.split("?", 1)[0]
            api, model = _route(path, body)
            seen = SeenRequest("POST", self.path, api, dict(self.headers.items()), body, raw)
            if api == "unknown":  # noted, but it does not use up a scripted behaviour
                server._note(seen)
                return self._send(404, {"error": {"message": f"no route {path}"}})
            refusal = _schema_refusal(server, api, body)
            if refusal:
                server._note(seen)
                return self._send(*refusal)
            refusal = _over_context(server, api, body)
            if refusal:
                server._note(seen)
                return self._send(400, {"error": {"message": refusal, "type": "invalid_request_error",
                                                  "code": "context_length_exceeded"}})
            behaviour, n = server._next(seen)
            if behaviour.kind == "hang":
                server._stop.wait(min(behaviour.seconds, server.max_hang_s))
                if server._stop.is_set():
                    return
                behaviour = Behaviour("echo")
            if behaviour.kind == "echo":
                answer = _echo_answer(body, f"as you said: {behaviour.text}" if behaviour.text else "")
                behaviour = Behaviour("ok", json.dumps(answer))
            if behaviour.kind == "trickle":
                return self._trickle(json.dumps(_ok_body(api, model, json.dumps(_echo_answer(body)), 1, 1, n)),
                                     behaviour.seconds)
            if behaviour.kind == "raw":
                return self._send_bytes(behaviour.status, behaviour.text.encode("latin-1"))
            if behaviour.kind == "status":
                return self._send(behaviour.status, _error_body(api, behaviour.status, behaviour.text),
                                  dict(behaviour.headers))
            tokens_in, tokens_out = max(1, len(raw) // 4), max(1, len(behaviour.text) // 4)
            self._send(200, _ok_body(api, model, behaviour.text, tokens_in, tokens_out, n, behaviour.cut,
                                     tool=_forced_tool(api, body)))

        def do_GET(self) -> None:  # noqa: N802
            path = self.path.split("?", 1)[0]
            n = server.context_tokens
            if n and server.report_context and path == "/props":
                return self._send(200, {"default_generation_settings": {"n_ctx": n}})
            if n and server.report_context and path == "/v1/models":
                return self._send(200, {"object": "list", "data": [{"id": "fake", "max_model_len": n}]})
            self._send(404, {"error": {"message": "only POST is spoken here"}})

        def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            self._send_bytes(status, json.dumps(payload).encode("utf-8"), headers)

        def _trickle(self, text: str, seconds: float) -> None:
            data = text.encode("utf-8")
            padded = data + b" " * max(0, int(seconds / 0.05) - len(data))  # JSON allows trailing spaces
            try:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(padded)))
                self.end_headers()
                for i in range(len(padded)):
                    if server._stop.wait(0.05):
                        return
                    self.wfile.write(padded[i:i + 1])
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _send_bytes(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.send_header("request-id", "req_fake")
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test); nothing to tell it

    return Handler


def sent_schema(api: str, body: Any) -> Any:
    """The reply schema a request carries in its provider's structured-output field, or None."""
    if not isinstance(body, dict):
        return None
    if api == "anthropic":
        tools = body.get("tools") or []
        choice = body.get("tool_choice") or {}
        forced = [t for t in tools if isinstance(t, dict) and t.get("name") == choice.get("name")]
        return forced[0].get("input_schema") if choice.get("type") == "tool" and forced else None
    if api == "gemini":
        config = body.get("generationConfig") or {}
        return config.get("responseJsonSchema") or config.get("responseSchema")
    if api == "openai":
        fmt = body.get("response_format") or {}
        if fmt.get("type") == "json_schema":
            return (fmt.get("json_schema") or {}).get("schema")
        return fmt.get("schema") if fmt.get("type") == "json_object" else None
    return None


def _schema_refusal(server: FakeLLMServer, api: str, body: Any) -> tuple[int, Any] | None:
    """(status, body) refusing a request without its schema or in a refused form, or None."""
    fmt = body.get("response_format") if api == "openai" and isinstance(body, dict) else None
    if isinstance(fmt, dict) and fmt.get("type") in server.reject_formats:
        return 500, {"error": {"message": f"response_format type {fmt.get('type')!r} is not supported",
                               "type": "server_error", "code": 500}}
    if not server.require_schema or sent_schema(api, body) is not None:
        return None
    with server._lock:
        server.missing_schema += 1
    return 400, _error_body(api, 400, "the fake server wants the reply's JSON schema in the structured-output "
                                      f"field of the {api} API")


def _forced_tool(api: str, body: Any) -> str:
    if api != "anthropic" or not isinstance(body, dict):
        return ""
    choice = body.get("tool_choice") or {}
    return str(choice.get("name") or "") if choice.get("type") == "tool" else ""


def _over_context(server: FakeLLMServer, api: str, body: Any) -> str:
    """The refusal of a request over the context window, or ""."""
    if not server.context_tokens or api != "openai" or not isinstance(body, dict):
        return ""
    messages = body.get("messages") or []
    prompt = sum(math.ceil(len(str(m.get("content", ""))) / 3.2) + 4 for m in messages if isinstance(m, dict))
    wanted = prompt + int(body.get("max_tokens") or 0)
    if wanted <= server.context_tokens:
        return ""
    with server._lock:
        server.over_context += 1
    return (f"This model's maximum context length is {server.context_tokens} tokens. However, you requested "
            f"{wanted} tokens ({prompt} in the messages, {body.get('max_tokens')} in the completion). "
            "Please reduce the length of the messages or completion.")


def _route(path: str, body: Any) -> tuple[str, str]:
    model = body.get("model", "") if isinstance(body, dict) else ""
    if path == "/v1/messages":
        return "anthropic", model
    m = GEMINI_PATH.match(path)
    if m:
        return "gemini", m.group(2)
    if path in ("/v1/chat/completions", "/chat/completions"):
        return "openai", model
    return "unknown", model


def _ok_body(api: str, model: str, text: str, tokens_in: int, tokens_out: int, n: int,
             cut: bool = False, tool: str = "") -> dict[str, Any]:
    if api == "anthropic":
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        try:
            data = json.loads(text) if tool and not cut else None
        except ValueError:
            data = None
        if isinstance(data, dict):  # the forced tool's call, as the API gives it
            content = [{"type": "tool_use", "id": f"toolu_fake_{n}", "name": tool, "input": data}]
        return {"id": f"msg_fake_{n}", "type": "message", "role": "assistant",
                "content": content, "model": model,
                "stop_reason": "max_tokens" if cut else "tool_use" if isinstance(data, dict) else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out}}
    if api == "gemini":
        return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                                "finishReason": "MAX_TOKENS" if cut else "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": tokens_in, "candidatesTokenCount": tokens_out,
                                  "totalTokenCount": tokens_in + tokens_out},
                "modelVersion": model}
    return {"id": f"chatcmpl-fake-{n}", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "length" if cut else "stop"}],
            "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                      "total_tokens": tokens_in + tokens_out}}


def _error_body(api: str, status: int, message: str = "") -> dict[str, Any]:
    message = message or ("rate limited, slow down" if status == 429 else "the fake server failed on purpose")
    if api == "anthropic":
        kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    if api == "gemini":
        kind = {429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}.get(status, "INTERNAL")
        return {"error": {"code": status, "message": message, "status": kind}}
    return {"error": {"message": message, "type": "server_error", "code": status}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--mode", choices=("echo", "fail"), default="echo")
    parser.add_argument("--context", type=int, default=None,
                        help="play a model with this many tokens of context (refuse longer requests, report it)")
    parser.add_argument("--seconds", type=float, default=0.0,
                        help="stop after this many seconds (default: run until Ctrl-C)")
    args = parser.parse_args(argv)
    server = FakeLLMServer(args.mode, args.port, context_tokens=args.context).start()
    print(f"fake LLM server on {server.url} (mode {args.mode}); point a client at it with e.g.\n"
          f"  ANTHROPIC_BASE_URL={server.url} GOOGLE_GEMINI_BASE_URL={server.url} "
          f"AEL_OPENAI_BASE_URL={server.url}  (any non-empty key works)", flush=True)
    try:
        threading.Event().wait(args.seconds if args.seconds > 0 else None)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
