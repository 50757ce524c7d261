"""The `ael-lab` command: the lab by default, and the headless runner.

    ael-lab                          open the lab (start screen)
    ael-lab lab SCENARIO [--seed N]  open the lab on a new session
    ael-lab open FILE                open a saved session in the lab
    ael-lab run SCENARIO [flags]     batch runs, sweeps, benchmarks
    ael-lab export-stream SCENARIO   write a scenario's stream as JSONL

Every error a user can cause is one line on stderr and exit code 2; no file
is written unless the run succeeded (saves and JSON are atomic).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Sequence

from engine.errors import AELError

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, not a usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise AELError(f"{message} (see {self.prog} --help)")


def parse_seeds(text: str) -> list[int]:
    """'42,123' or '1..200' (inclusive) or a mix: '1..3,42'."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        try:
            if ".." in part:
                lo, hi = (int(x) for x in part.split("..", 1))
                if hi < lo:
                    raise ValueError
                seeds.extend(range(lo, hi + 1))
            else:
                seeds.append(int(part))
        except ValueError:
            raise AELError(f"--seeds: {part!r} is not a seed; give integers like 42,123 or a range 1..200") from None
    if any(s < 0 for s in seeds):
        raise AELError("--seeds: seeds must be non-negative integers")
    if len(set(seeds)) != len(seeds):
        raise AELError("--seeds: a seed is listed twice")
    return seeds


def _fraction_pair(text: str) -> tuple[float, float]:
    try:
        a, b = (float(x) for x in text.split(","))
    except ValueError:
        raise AELError(f"--split: {text!r} should be two fractions, train,val (e.g. 0.6,0.2)") from None
    return a, b


def _prior(text: str) -> tuple[float, float]:
    try:
        a, b = (float(x) for x in text.split(","))
        if a <= 0 or b <= 0:
            raise ValueError
    except ValueError:
        raise AELError(f"--prior: {text!r} should be two positive numbers alpha,beta (e.g. 1,1)") from None
    return a, b


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ael-lab", description="AEL Lab: step, watch and steer an agent that learns how to use its memory.")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    run = sub.add_parser("run", help="run sessions headless and print the results table")
    run.add_argument("scenario", help="synthetic, support or portfolio")
    run.add_argument("--seeds", help="comma list and/or ranges: 42,123 or 1..200 (default 42)")
    run.add_argument("--selector",
                     help="rr, ucb1, egreedy, ts, ts+reflection, oracle, fixed:POLICY, a comma list, or all")
    run.add_argument("--episodes", type=int, help="stop the stream after N episodes")
    run.add_argument("--approve", choices=["auto", "reject"],
                     help="what happens to proposals in batch (default auto)")
    run.add_argument("--until", type=int, help="stop at this episode (exclusive), e.g. to --save mid-run")
    run.add_argument("--save", help="save the session here at the end (one run only)")
    run.add_argument("--resume", help="continue a saved session to the end")
    run.add_argument("--json", dest="json_path", help="write results as JSON here")
    run.add_argument("--warmup", type=int, help="warm-up episodes (default: the scenario's)")
    run.add_argument("--split", type=_fraction_pair_arg, help="train,val fractions after warm-up, e.g. 0.6,0.2")
    run.add_argument("--prior", type=_prior_arg, help="Beta prior alpha,beta of every arm (default 1,1)")
    run.add_argument("--trigger", help="reflection trigger: diagnose or paper (default: the scenario's)")
    run.add_argument("--reflect-every", type=int, help="slow-window length: reflect every N episodes")
    run.add_argument("--reflect-window", type=int, help="trailing window of the reflection gate")
    run.add_argument("--reflect-threshold", type=float, help="threshold of the reflection gate")
    run.add_argument("--data", help="portfolio market data: synthetic (default), yahoo, or a folder")
    run.add_argument("--quiet", action="store_true", help="no progress bar and no table")
    run.add_argument("--allow-code-auto", action="store_true",
                     help="let --approve auto admit Python-code policies too (off: they are rejected in batch)")
    add_llm_flags(run)

    lab = sub.add_parser("lab", help="open the lab on a new session")
    lab.add_argument("scenario")
    lab.add_argument("--seed", type=int, default=42)
    lab.add_argument("--selector", default="ts+reflection")
    lab.add_argument("--approve", choices=["manual", "auto"], default="manual")
    lab.add_argument("--data", help="portfolio market data: synthetic (default), yahoo, or a folder")
    add_llm_flags(lab)

    op = sub.add_parser("open", help="open a saved session in the lab")
    op.add_argument("file")

    ex = sub.add_parser("export-stream", help="write a scenario's episode stream as JSONL to stdout")
    ex.add_argument("scenario")
    ex.add_argument("--seed", type=int, default=42)
    return p


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
    g.add_argument("--llm-timeout", type=float, default=30.0, help="seconds per LLM request (default 30)")
    g.add_argument("--llm-retries", type=int, default=3, help="retries on 429, 5xx and timeouts (default 3)")
    g.add_argument("--llm-context", type=int, help="the model's context window in tokens (default: what the server "
                                                   "reports, else the provider's, else 2048)")
    g.add_argument("--record", help="write every LLM request and response to this cassette")
    g.add_argument("--replay", help="answer LLM requests from this cassette, with no network")


def llm_config(args: argparse.Namespace) -> dict:
    """The session's LLM settings from the flags, validated (AELError names the flag)."""
    from engine.llm_setup import LLMConfig

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
        from scenarios import scenario_class

        if not scenario_class(args.scenario).llm_agent:
            raise AELError(f"--agent: the {args.scenario} scenario has no agent a model could play; drop --agent")
    return config.to_dict() if config.uses_llm else {}


def _fraction_pair_arg(text: str) -> tuple[float, float]:
    return _fraction_pair(text)


def _prior_arg(text: str) -> tuple[float, float]:
    return _prior(text)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command == "run":
            from .runner import run_command

            return run_command(args)
        if args.command == "export-stream":
            return export_stream(args)
        return open_lab(args)
    except AELError as err:
        from engine.secrets import scrub  # an error line is shown: it must never carry a key

        print(f"ael-lab: {scrub(str(err))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ael-lab: interrupted", file=sys.stderr)
        return 130


def export_stream(args: argparse.Namespace) -> int:
    from scenarios import scenario_class

    cls = scenario_class(args.scenario)
    exporter = getattr(cls, "export_stream", None)
    if exporter is None:
        raise AELError(f"the {args.scenario} scenario has no stream to export")
    try:
        for row in exporter(args.seed):
            sys.stdout.write(json.dumps(row) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader (say `head`) has had enough: stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def open_lab(args: argparse.Namespace) -> int:
    try:
        from .app import run_app
    except ImportError as err:
        raise AELError(f"the lab's interface is not available in this build ({err})") from err
    return run_app(args)


if __name__ == "__main__":
    raise SystemExit(main())
