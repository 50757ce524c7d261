"""The canonical built-in template bank of the support stream (spec Appendix A).

Everything here is data. Order matters: the generator draws indices into these
lists, so reordering any entry changes the canonical stream (and its check hash).
"""

from __future__ import annotations

ROUTES: tuple[str, ...] = (
    "schema_validation", "queue_backpressure", "timeout_config", "media_pipeline",
    "backend_error", "sandbox_isolation", "session_resume", "auth_env",
)
DEFAULT_ROUTE = "backend_error"

ENDPOINTS: tuple[str, ...] = (
    "/v1/chat/completions", "/v1/batches", "/v1/responses", "/v1/audio/transcriptions",
    "/v1/embeddings", "/v1/code/execute", "/v1/threads/runs", "/v1/models",
)
# The route each endpoint decides in regime 3 (spec §1): endpoint i <-> route i.
R3_MAP: dict[str, str] = dict(zip(ROUTES, ENDPOINTS))          # route -> endpoint
ENDPOINT_ROUTE: dict[str, str] = dict(zip(ENDPOINTS, ROUTES))  # endpoint -> route

REGIME_NAMES: tuple[str, ...] = ("R0", "R1", "R2", "R3")
REGIME_LABELS: tuple[str, ...] = (
    "explicit logs", "shorthand drift", "imbalanced incidents", "route-aware regression",
)
# Half-open boundaries: R0=[0,300), R1=[300,600), R2=[600,900), R3=[900,1200).
REGIME_STARTS: tuple[int, ...] = (0, 300, 600, 900)
N_EPISODES = 1200

_R3_OTHER = 0.78 / 7
# Route mix per regime, in ROUTES order (spec §2). `none` always answers
# backend_error, so its accuracy per regime is backend_error's share here.
MIX: tuple[tuple[float, ...], ...] = (
    (1 / 8,) * 8,
    (1 / 8,) * 8,
    (0.06, 0.20, 0.15, 0.06, 0.35, 0.06, 0.06, 0.06),
    (_R3_OTHER, _R3_OTHER, _R3_OTHER, _R3_OTHER, 0.22, _R3_OTHER, _R3_OTHER, _R3_OTHER),
)
P_SIGNAL: tuple[float, ...] = (0.95, 0.52, 0.40, 0.0)
P_KEEP_OLD_STYLE = 0.25   # share of signal tickets in R1/R2 written in the previous regime's style
P_ENDPOINT_NOISE = 0.04   # R3 tickets whose endpoint is uniform instead of the route's own
P_FILLER = 0.6

EXPLICIT: dict[str, tuple[str, ...]] = {
    "schema_validation": (
        "HTTP 422 Unprocessable Entity: JSON schema validation failed for field {field}: expected {type} got {type2}",
        "ValidationError: {field} is a required property in response_format json_schema for {model}",
        "400 invalid_request_error: additionalProperties not allowed, schema rejected property {field}",
    ),
    "queue_backpressure": (
        "HTTP 429 Too Many Requests: queue depth {n} exceeded, backpressure applied, retry-after {secs}s",
        "batch job stuck in validating state, worker queue saturated with {n} pending jobs",
        "503 overloaded: request queue full, enqueue rejected after {n} retries",
    ),
    "timeout_config": (
        "HTTP 504 Gateway Timeout after {secs}s waiting for upstream read on {model}",
        "ReadTimeout: client timeout of {secs}s exceeded, stream closed before completion",
        "deadline exceeded: request_timeout setting {secs}s too low for max_tokens {n}",
    ),
    "media_pipeline": (
        "ffmpeg transcode failed: unsupported codec in {fmt} upload, audio decode error",
        "media pipeline error: image resize worker crashed on {fmt} input",
        "HTTP 415 Unsupported Media Type: cannot decode {fmt} file, invalid sample rate",
    ),
    "backend_error": (
        "HTTP 500 Internal Server Error: upstream model server raised an exception for {model}",
        "502 Bad Gateway: backend shard unavailable, inference worker crashed",
        "unexpected internal error code server_error, traceback in model runner {model}",
    ),
    "sandbox_isolation": (
        "sandbox violation: PermissionError EPERM writing outside /tmp in code interpreter container",
        "seccomp blocked syscall, container isolation killed process pid {n}",
        "network egress denied inside sandbox, isolation policy blocked pip install",
    ),
    "session_resume": (
        "session_id {sid} not found when resuming thread, conversation state expired",
        "resume failed: run checkpoint missing, previous_response_id {sid} invalid",
        "HTTP 409 Conflict: thread already has an active run, cannot resume session {sid}",
    ),
    "auth_env": (
        "HTTP 401 Unauthorized: invalid api key, OPENAI_API_KEY env var not set",
        "403 Forbidden: project key lacks permission, organization header mismatch",
        "authentication failed: expired token in environment config, wrong base_url region",
    ),
}

SHORTHAND: dict[str, tuple[str, ...]] = {
    "schema_validation": ("{field} fmt rejected again", "strict mode nope on {field}", "json shape borked {field} prop"),
    "queue_backpressure": ("q full again", "stuck pending forever {n} jobs", "throttled hard bp kicking in"),
    "timeout_config": ("TO after {secs}s", "hangs then dies TO", "stream cuts early too slow"),
    "media_pipeline": ("vid upload borked", "{fmt} wont decode", "audio garbled after upload {fmt}"),
    "backend_error": ("5xx spam", "random 500s rn", "srv err no details"),
    "sandbox_isolation": ("sbx blocks writes", "container kills my script", "no net in sbx"),
    "session_resume": ("sess gone after reconnect", "cant pick up convo {sid}", "thread lost mid run"),
    "auth_env": ("key rejected", "401 w new key", "env var missing key"),
}

INCIDENT: dict[str, tuple[str, ...]] = {
    "schema_validation": (
        "incident: spike in structured output rejects on {field}",
        "tenants see payload contract errors after sdk bump, {field} fmt",
    ),
    "queue_backpressure": (
        "incident: batch backlog growing, {n} jobs pending in q",
        "tenants throttled, admission control shedding load",
    ),
    "timeout_config": (
        "incident: long generations cut at {secs}s, TO on proxy",
        "tenants report hanging streams then deadline errors",
    ),
    "media_pipeline": (
        "incident: transcription jobs fail on {fmt} uploads",
        "tenants report garbled audio and broken thumbnails",
    ),
    "backend_error": (
        "incident: elevated 5xx on inference fleet",
        "tenants report server errors on {model}, shard restarts",
    ),
    "sandbox_isolation": (
        "incident: code runs killed by container policy",
        "tenants report sbx write denials and blocked egress",
    ),
    "session_resume": (
        "incident: conversations lose state on reconnect",
        "tenants cannot continue threads, run state dropped",
    ),
    "auth_env": (
        "incident: key rotation broke auth for tenants",
        "tenants get 401 after env migration",
    ),
}

# Signal templates by style (= the regime that introduced the style).
BANK: tuple[dict[str, tuple[str, ...]], ...] = (EXPLICIT, SHORTHAND, INCIDENT)

# Signal-free texts, identical across routes.
GENERIC: tuple[tuple[str, ...], ...] = (
    (
        "request failed with an unknown error, logs attached",
        "API call returned an error, see stack trace",
        "error while calling the API from our backend job",
    ),
    (
        "its broken again pls fix asap",
        "not working since morning idk why",
        "prod down help pls",
        "still failing same as before urgent",
        "doesnt work anymore pls check",
    ),
    (
        "incident: customers report failures, investigating impact",
        "incident: elevated error rates for some tenants, mitigation pending",
        "tenants report degraded service, root cause unknown",
        "incident: intermittent failures across regions, paging oncall",
    ),
)

# Regime 3: the same six texts for every route; only the endpoint tells routes apart.
AMBIGUOUS: tuple[str, ...] = (
    "requests failing since your update, nothing changed on our side",
    "requests failing since the update, worked fine before",
    "since your update requests keep failing intermittently",
    "requests failing since update, no clear error message",
    "requests failing again since the latest update",
    "since the update most requests failing, please check",
)

FILLER: tuple[tuple[str, ...], ...] = (
    ("request_id", "trace", "retrying", "logs attached", "python sdk", "node sdk"),
    ("pls", "asap", "lol", "rn", "urgent", "ty"),
    ("enterprise", "us-east", "eu-west", "customers", "sev2", "sev3"),
    ("pls", "urgent", "customers", "prod", "again", "thanks"),
)

SLOTS: dict[str, tuple[str, ...]] = {
    "field": ("messages", "tools", "temperature", "response_format", "metadata", "input", "stop", "user"),
    "type": ("string", "array", "object", "number"),
    "type2": ("null", "integer", "boolean", "list"),
    "model": ("model-a", "model-b", "model-mini", "model-large"),
    "fmt": ("mp3", "wav", "m4a", "png", "webp", "mp4"),
    "secs": ("30", "60", "90", "120", "600"),
    "n": ("128", "512", "1024", "4096", "10000"),
}
HEX_DIGITS: tuple[str, ...] = tuple("0123456789abcdef")
SID_LENGTH = 6

STOP_WORDS: frozenset[str] = frozenset({
    "a", "after", "an", "and", "as", "at", "be", "by", "for", "got", "in", "is", "my", "no",
    "not", "of", "on", "our", "same", "the", "then", "to", "w", "when", "with",
})
