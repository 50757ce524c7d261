"""The process the local model runs in. Never imported by the lab or the CLI:
`engine.llm.providers.local_process` starts it as `python -P local_child.py CONFIG`.

llama.cpp is native code: a library built for another CPU stops with SIGILL,
a bad build or a memory fault with SIGSEGV, and in the lab's or the CLI's
process that would end the run with nothing saved. Here it ends this process
only; the parent turns it into one line and the session goes on or is saved.

One JSON line in, one JSON line out:

    config (argv): {"model_path": ..., "n_ctx": n, "threads": n}
    first:  {"ready": true} or {"ready": false, "error": "..."}
    in:     {"messages": [...], "response_format": {...}, "temperature": t, "max_tokens": n, "seed": n}
    out:    {"ok": true, "content": text, "finish_reason": ..., "prompt_tokens": n, "completion_tokens": n}
            {"ok": false, "error": "..."}
"""

import json
import os
import sys


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


def main():
    config = json.loads(sys.argv[1])
    out = _replies()
    try:
        import llama_cpp

        llama = llama_cpp.Llama(model_path=config["model_path"], n_ctx=config["n_ctx"], n_threads=config["threads"],
                                n_threads_batch=config["threads"], seed=0, verbose=False)
    except Exception as exc:  # noqa: BLE001 - said to the parent, which makes it one line
        _say(out, {"ready": False, "error": "%s: %s" % (type(exc).__name__, str(exc)[:300])})
        return
    _say(out, {"ready": True})
    for line in sys.stdin:
        try:
            req = json.loads(line)
            # reset: no reuse of a previous prompt's cache, whose batching could shift the numbers
            llama.reset()
            done = llama.create_chat_completion(
                messages=req["messages"], response_format=req["response_format"],
                temperature=req["temperature"], max_tokens=req["max_tokens"], seed=req["seed"])
            choice = done["choices"][0]
            usage = done.get("usage") or {}
            reply = {"ok": True, "content": str(choice["message"].get("content") or ""),
                     "finish_reason": choice.get("finish_reason"),
                     "prompt_tokens": int(usage.get("prompt_tokens") or 0),
                     "completion_tokens": int(usage.get("completion_tokens") or 0)}
        except (ValueError, RuntimeError, KeyError, TypeError) as exc:  # e.g. a prompt over the context
            reply = {"ok": False, "error": "%s: %s" % (type(exc).__name__, str(exc)[:300])}
        _say(out, reply)
    llama.close()


if __name__ == "__main__":
    main()
