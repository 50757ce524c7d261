"""The LLM flags of `ael-lab run` and `ael-lab lab`, and the LLM settings they give.

Apart from `cli` so the runner and the app can read the settings without
importing the command line back (cli -> runner, cli -> app, never the reverse).
"""

from __future__ import annotations

import argparse

from ael_lab import AELError

from . import values as types


def add_llm_flags(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("LLM backends (offline unless asked; keys come from the environment)")
    g.add_argument("--agent", default="offline",
                   help="who acts: offline, anthropic, gemini, openai-compatible or local (make local)")
    g.add_argument("--reflector", default="offline",
                   help="who reflects: offline, anthropic, gemini, openai-compatible or local (make local)")
    g.add_argument("--agent-model", help="model for the agent (default: the provider's; local: a GGUF file)")
    g.add_argument("--reflector-model", help="model for the reflector (default: the provider's; local: a GGUF file)")
    g.add_argument("--error-policy", default="raise", help="after retries: raise (stop, session intact) or fallback "
                                                           "(answer offline, marked)")
    g.add_argument("--llm-url", help="base URL of the provider (a proxy, a gateway or a local server)")
    g.add_argument("--llm-timeout", type=types.llm_timeout, default=30.0,
                   help="seconds per LLM request (default 30)")
    g.add_argument("--llm-retries", type=types.llm_retries, default=3,
                   help="retries on 429, 5xx and timeouts (default 3)")
    g.add_argument("--llm-context", type=types.llm_context,
                   help="the model's context window in tokens (default: what the server reports, else the "
                        "provider's, else 2048)")
    g.add_argument("--record", help="write every LLM request and response to this cassette")
    g.add_argument("--replay", help="answer LLM requests from this cassette, with no network")


def llm_config(args: argparse.Namespace) -> dict:
    """The session's LLM settings from the flags, validated (AELError names the flag)."""
    from ael_lab.llm import LLMConfig

    if args.llm_timeout <= 0:
        raise AELError("--llm-timeout: must be a positive number of seconds")
    if not 0 <= args.llm_retries <= 10:
        raise AELError("--llm-retries: must be between 0 and 10")
    if args.llm_context is not None and not 256 <= args.llm_context <= 100_000_000:
        raise AELError("--llm-context: give the model's context window in tokens (256 or more)")
    config = LLMConfig(
        agent=args.agent, reflector=args.reflector, agent_model=args.agent_model,
        reflector_model=args.reflector_model, error_policy=args.error_policy, timeout_s=args.llm_timeout,
        max_retries=args.llm_retries, base_url=args.llm_url, record=args.record, replay=args.replay,
        context_tokens=args.llm_context,
    )
    config.check_local()
    if config.agent != "offline":
        from ael_lab.worlds import spec_of

        if not spec_of(args.scenario).uses_llm:
            raise AELError(f"--agent: the {args.scenario} scenario has no agent a model could play; drop --agent")
    return config.to_dict() if config.uses_llm else {}
