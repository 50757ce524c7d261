"""The process the local model runs in. Never imported by the lab or the CLI:
`engine.llm.providers.local_process` starts it as `python -P local_child.py CONFIG`.

llama.cpp is native code: a library built for another CPU stops with SIGILL,
a bad build or a memory fault with SIGSEGV, and in the lab's or the CLI's
process that would end the run with nothing saved. Here it ends this process
only; the parent turns it into one line and the session goes on or is saved.

One JSON line in, one JSON line out:

    config (argv): {"model_path": ..., "n_ctx": n, "threads": n, "prefix_states": n, "flash_attn": bool}
    first:  {"ready": true} or {"ready": false, "error": "..."}
    in:     {"messages": [...], "response_format": {...}, "temperature": t, "max_tokens": n, "seed": n}
    out:    {"ok": true, "content": text, "finish_reason": ..., "prompt_tokens": n, "completion_tokens": n,
             "reused_tokens": n}
            {"ok": false, "error": "..."}

Prompt prefixes (`PrefixStates`): every call of a kind begins with the same system prompt,
most of a call's prompt tokens. The context after that prefix (and after its part before
the schema's line), evaluated alone from an empty context, is kept (a few, least recently
used dropped first), and a call whose prompt begins with it restores it and evaluates only
the rest. The cuts are a function of the prompt alone, so a kept state holds exactly what
evaluating the same pieces now would, and a request gets the same answer whatever ran
before it; and llama.cpp's CPU backend computes a token's keys, values and logits the same
whichever batch it is in (the last token's logits bit for bit those of the whole prompt at
once, checked on recorded support and stream prompts), so the answer is byte for byte the
one of a prompt evaluated whole (tests/model/test_local_model.py compares them). A state
that cannot be restored is dropped and the prompt evaluated from the start.
"""

import ctypes
import json
import os
import sys
from collections import OrderedDict

# a few kinds of call take turns (the agent's, the reflector's two), two states each, and the
# stream's schema grows with the labels seen; a state is about 23 KB a token (SmolLM2-135M)
PREFIX_STATES = 8
PREFIX_BYTES = 64 * 2**20
SEQUENCE = 0  # llama-cpp-python's single sequence
# llama.cpp's fused attention kernel: tests/model's support run took less CPU with it in each of
# four pairs of runs (docs/extending.md); a kept prefix state still gives the answer of an
# empty context, byte for byte (tests/model/test_local_model.py)
FLASH_ATTENTION = True


def prefix_length(tokens, end_of_turn):
    """How many of a prompt's tokens are its prefix: up to and including its first
    end-of-turn token (the end of the system message), 0 when the prompt has no such turn
    before its last token."""
    for i, token in enumerate(tokens[:-1]):
        if token == end_of_turn:
            return i + 1
    return 0


def split_points(tokens, end_of_turn, is_newline):
    """Where a prompt's prefix is cut, each piece evaluated alone: after its last line break
    (the system prompt keeps the reply's schema, which changes with the offered labels, on
    its last line) and at its end. A function of the prompt alone."""
    n = prefix_length(tokens, end_of_turn)
    if not n:
        return []
    inner = max((i + 1 for i in range(n - 1) if is_newline(tokens[i])), default=0)
    return [inner, n] if inner else [n]


class PrefixStates:
    """The model's context after each of a few prompt prefixes, keyed by the prefix's exact
    tokens (one child holds one model file, so a state is never used with another model)."""

    def __init__(self, limit=PREFIX_STATES, max_bytes=PREFIX_BYTES):
        self.limit, self.max_bytes = limit, max_bytes
        self._states = OrderedDict()  # prefix tokens -> the context's bytes after them
        self._newlines = {}  # token -> whether its text holds a line break

    def __len__(self):
        return len(self._states)

    def held_bytes(self):
        return sum(len(b) for b in self._states.values())

    def prime(self, llama, tokens):
        """Leave `llama` holding the context after `tokens`' prefix and return how many tokens
        of it came from a kept state (0 when evaluated now); a prompt without a prefix, or any
        failure, leaves it reset for a whole evaluation."""
        points = []
        try:
            if self.limit:
                points = split_points(tokens, llama.token_eos(), lambda t: self._is_newline(llama, t))
            reused = next((p for p in reversed(points) if self._restore(llama, tuple(tokens[:p]))), 0)
            if not reused:
                llama.reset()
            done = reused
            for p in points:
                if p > done:  # each piece alone, from the state before it: the cuts never depend on history
                    llama.eval(tokens[done:p])
                    self._keep(tuple(tokens[:p]), _read_state(llama))
                    done = p
            return reused
        except Exception:  # noqa: BLE001 - whatever went wrong, the whole prompt is evaluated afresh
            for p in points:
                self._states.pop(tuple(tokens[:p]), None)
            llama.reset()
            return 0

    def _is_newline(self, llama, token):
        if token not in self._newlines:
            self._newlines[token] = b"\n" in llama.detokenize([token])
        return self._newlines[token]

    def _restore(self, llama, key):
        blob = self._states.get(key)
        if blob is None:
            return False
        self._states.move_to_end(key)
        if not _write_state(llama, blob):
            del self._states[key]
            return False
        llama.input_ids[:len(key)] = key
        llama.n_tokens = len(key)
        return True

    def _keep(self, key, blob):
        if not blob or len(blob) > self.max_bytes:
            return
        self._states[key] = blob
        self._states.move_to_end(key)
        while len(self._states) > self.limit or self.held_bytes() > self.max_bytes:
            self._states.popitem(last=False)


def _read_state(llama):
    import llama_cpp

    size = llama_cpp.llama_state_seq_get_size(llama.ctx, SEQUENCE)
    buffer = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_seq_get_data(llama.ctx, buffer, size, SEQUENCE)
    return bytes(memoryview(buffer)[:written]) if 0 < written <= size else b""


def _write_state(llama, blob):
    import llama_cpp

    llama.reset()
    buffer = (ctypes.c_uint8 * len(blob)).from_buffer_copy(blob)
    return llama_cpp.llama_state_seq_set_data(llama.ctx, buffer, len(blob), SEQUENCE) == len(blob)


def _replies():
    """The protocol's stream: a copy of stdout, with descriptor 1 itself sent to stderr so
    that anything the native library prints cannot end up in a reply."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def _say(out, reply):
    out.write(json.dumps(reply) + "\n")
    out.flush()


def _model_class(llama_cpp):
    class PrefixReusingLlama(llama_cpp.Llama):
        """llama_cpp.Llama that starts each prompt from its prefix's kept state; the
        library's own prefix match then evaluates only the rest."""

        def __init__(self, *args, prefix_states, **kwargs):
            super().__init__(*args, **kwargs)
            self.prefixes = PrefixStates(prefix_states)
            self.reused_tokens = 0

        def generate(self, tokens, *args, **kwargs):
            tokens = list(tokens)
            self.reused_tokens = self.prefixes.prime(self, tokens)
            return super().generate(tokens, *args, **kwargs)

    return PrefixReusingLlama


def main():
    config = json.loads(sys.argv[1])
    out = _replies()
    try:
        import llama_cpp

        llama = _model_class(llama_cpp)(
            model_path=config["model_path"], n_ctx=config["n_ctx"], n_threads=config["threads"],
            n_threads_batch=config["threads"], seed=0, verbose=False,
            flash_attn=bool(config.get("flash_attn", FLASH_ATTENTION)),
            prefix_states=int(config.get("prefix_states", PREFIX_STATES)))
    except Exception as exc:  # noqa: BLE001 - said to the parent, which makes it one line
        _say(out, {"ready": False, "error": "%s: %s" % (type(exc).__name__, str(exc)[:300])})
        return
    _say(out, {"ready": True})
    for line in sys.stdin:
        try:
            req = json.loads(line)
            llama.reused_tokens = 0
            done = llama.create_chat_completion(
                messages=req["messages"], response_format=req["response_format"],
                temperature=req["temperature"], max_tokens=req["max_tokens"], seed=req["seed"])
            choice = done["choices"][0]
            usage = done.get("usage") or {}
            reply = {"ok": True, "content": str(choice["message"].get("content") or ""),
                     "finish_reason": choice.get("finish_reason"),
                     "prompt_tokens": int(usage.get("prompt_tokens") or 0),
                     "completion_tokens": int(usage.get("completion_tokens") or 0),
                     "reused_tokens": llama.reused_tokens}
        except (ValueError, RuntimeError, KeyError, TypeError) as exc:  # e.g. a prompt over the context
            reply = {"ok": False, "error": "%s: %s" % (type(exc).__name__, str(exc)[:300])}
        _say(out, reply)
    llama.close()


if __name__ == "__main__":
    main()
