"""One scrubber for every text the program persists or shows.

What counts as a secret:
- the values of credential-like environment variables (`*_API_KEY`,
  `*_TOKEN`, `*_SECRET`, `*_PASSWORD`, `*_AUTH*`), and keys handed to an LLM
  client directly (`remember`), but only values that can be secrets: at
  least `MIN_SECRET_LEN` characters of one token (no spaces). A placeholder
  such as `OPENAI_API_KEY=x`, which local servers accept, must not turn every
  letter x of a message into "[redacted]";
- the userinfo of a URL (`http://user:pass@host` -> `http://[redacted]@host`);
- a bearer token, and `api_key=…` / `x-api-key: …` pairs;
- tokens shaped like the providers' keys (`sk-…`, `AIza…`), wherever they come from.

The replacement never contains a quote or a backslash, so scrubbing the text
of a JSON document leaves valid JSON.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any, Iterable, Mapping

REDACTED = "[redacted]"
MIN_SECRET_LEN = 8
ERROR_TEXT_LIMIT = 300  # characters of error text kept anywhere (ledger, cassette, messages)

_SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH)", re.IGNORECASE)
# a value that can be a key: one run of printable ASCII with no quote, backslash or space
_KEY_SHAPED = re.compile(r"[!#-\[\]-~]{%d,}" % MIN_SECRET_LEN)
# Secrets found by their shape, each as (where to look: a lowercase anchor, the pattern
# matched at each place the anchor occurs, whether the anchor must start a word, how
# many leading groups to keep). Matching only where the anchor occurs keeps a 1 MB save
# (whose support tickets say "api key" a dozen times) from being scanned by regexes.
_SHAPES = (
    ("://", re.compile(r"(://)[^\s/@\"'\\<>]+@"), False, 1),                           # URL userinfo
    ("bearer", re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=\-]{8,}"), True, 1),
    ("api", re.compile(r"(?i)(api[_-]?key[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9._~+/=\-]{8,}"), True, 1),
    ("sk-", re.compile(r"sk-(?=[A-Za-z_\-]*[0-9])[A-Za-z0-9_\-]{16,}"), True, 0),     # a key has a digit
    ("aiza", re.compile(r"AIza[0-9A-Za-z_\-]{30,}"), True, 0),
)


def _cut_shapes(text: str) -> str:
    low = text.lower()
    for anchor, pattern, word_start, keep in _SHAPES:
        pos = low.find(anchor)
        if pos < 0:
            continue
        out, last = [], 0
        while pos >= 0:
            # "risk-…" and "task-specific-…" do not start a key; "x-api-key" does start one
            starts_word = pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] == "_")
            m = pattern.match(text, pos) if (starts_word or not word_start) else None
            if m is not None and (anchor != "sk-" or pos == 0 or text[pos - 1] != "-"):
                out += [text[last:pos], *(m.group(i + 1) for i in range(keep)), REDACTED,
                        "@" if anchor == "://" else ""]
                last = m.end()
            pos = low.find(anchor, max(pos + 1, last))
        if out:
            text = "".join(out) + text[last:]
            low = text.lower()
    return text


_remembered: set[str] = set()
_lock = threading.Lock()


def can_be_secret(value: str) -> bool:
    """Long enough and shaped like a key: one token of printable ASCII."""
    return isinstance(value, str) and _KEY_SHAPED.fullmatch(value) is not None


def remember(*values: str | None) -> None:
    """Keys this process was given other than through `os.environ` (an API key
    in the settings, a test's env mapping): scrubbed from everything written
    from now on. Process-wide on purpose: a key known to one client must not
    reach any file."""
    with _lock:
        _remembered.update(v for v in values if v and can_be_secret(v))


def userinfo_secrets(url: str | None) -> list[str]:
    """The user and password of a URL's userinfo (`http://user:pass@host`), so
    that a reply quoting the password alone is scrubbed too."""
    match = re.match(r"[a-zA-Z][a-zA-Z0-9+.\-]*://([^/@\s]+)@", url or "")
    return match.group(1).split(":", 1) if match else []


def secret_values(env: Mapping[str, str] | None = None) -> list[str]:
    """The secrets to cut out, longest first (so a key that contains another goes whole)."""
    env = os.environ if env is None else env
    found = {v for k, v in env.items() if _SECRET_NAME.search(k) and can_be_secret(v)}
    with _lock:
        found |= _remembered
    return sorted(found, key=len, reverse=True)


def scrub(text: str, env: Mapping[str, str] | None = None, extra: Iterable[str] = ()) -> str:
    """`text` with every secret replaced by [redacted]."""
    values = secret_values(env)
    values += [v for v in extra if v and can_be_secret(v) and v not in values]
    for value in values:
        if value in text:
            text = text.replace(value, REDACTED)
    return _cut_shapes(text)


def scrub_data(value: Any, env: Mapping[str, str] | None = None) -> Any:
    """A JSON-like value with every string (keys included) scrubbed."""
    if isinstance(value, str):
        return scrub(value, env)
    if isinstance(value, dict):
        return {scrub_data(k, env): scrub_data(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_data(v, env) for v in value]
    return value


def clip(text: str, limit: int = ERROR_TEXT_LIMIT) -> str:
    """One line of at most `limit` characters: error text is kept and shown, so
    a 10 MB reply quoted in an error must not become a 10 MB line."""
    flat = " ".join(str(text)[: 4 * limit].split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
