"""`ael-lab run`: the same engine as the lab, headless, for batch runs and sweeps."""

from __future__ import annotations

import argparse
from functools import partial
from typing import Any

from ael_lab import AELError
from ael_lab.llm import LLMConfig, fallback_line, shared_cassette
from ael_lab.registries import loaded_plugins as plugins_loaded
from ael_lab.runs import Session, SessionConfig, finite, run_result, summarise
from ael_lab.store import write_json_atomic
from ael_lab.worlds import ScenarioSpec, all_specs, make_scenario, spec_of

from ael_cli.flags.reflection_flags import reflector_options as flag_reflector_options
from ael_cli.flags.llm_flags import llm_config
from ael_cli.outputs import STDOUT, check_run_outputs
from ael_cli.run_progress import run_progress
from ael_cli.resume_decisions import (EXIT_STOPPED, decide_waiting, decisions_given, outcome, prepare,
                                      stopped_line, unused_decisions)
from ael_cli.flags.scenario_flags import given_scenario_flags
from ael_cli.flags.variant_flags import variants_of
from ael_cli.flags.scenario_flags import scenario_options as scenario_options_of


def _selectors(text: str, spec: ScenarioSpec) -> list[str]:
    if text.strip() == "all":
        return spec.all_selectors
    from ael_lab.selectors import UnknownMethod, parse_method, split_methods, unknown_method

    try:
        names = split_methods(text)
    except AELError as err:
        raise AELError(f"--selector: {err}") from None
    if not names:
        raise AELError("--selector: give at least one selector")
    for name in names:
        if name.startswith("baseline:"):
            known = spec.baselines
            if name.split(":", 1)[1] not in known:
                raise AELError(f"--selector: unknown baseline {name!r} "
                               f"(this scenario has {', '.join(f'baseline:{b}' for b in known) or 'none'})")
        else:
            try:
                parse_method(name)  # refuses an unknown selector before anything runs
            except UnknownMethod:
                accepted = ["all", *(f"baseline:{b}" for b in spec.baselines)]
                raise AELError(str(unknown_method(name, accepted))) from None
    return names


def _check_outputs(args: argparse.Namespace, n_runs: int, selectors: list[str] = ()) -> None:
    if args.save and n_runs != 1:
        raise AELError("--save needs exactly one run (one seed and one selector)")
    if args.save and any(s.startswith("baseline:") for s in selectors):
        raise AELError("--save: a baseline is not a session and cannot be saved")
    if args.episodes is not None and args.episodes < 1:
        raise AELError("--episodes: must be a positive number")
    if args.until is not None and args.until < 0:
        raise AELError("--until: must be an episode number (0 or more)")
    if args.warmup is not None and args.warmup < 0:
        raise AELError("--warmup: must be 0 or more")


# flags that shape a new session; a resumed session keeps the settings it was saved with
# (--llm-url and --record are allowed: they confirm the endpoint and cassette a file names; --approve
# and --decide decide what a resumed run waits at: ael_cli/resume_decisions.py)
SESSION_FLAGS = ("seeds", "selector", "episodes", "warmup", "split", "prior", "trigger",
                 "reflect_every", "reflect_window", "reflect_threshold", "agent_model",
                 "reflector_model", "llm_context", "replay", "variant")


def run_command(args: argparse.Namespace) -> int:
    check_run_outputs(args)  # before any work: a refused output must not cost a run
    decisions_given(args)  # --decide: only with --resume, never both ways
    if args.resume:
        given = [f for f in SESSION_FLAGS if getattr(args, f) is not None]
        given += [f for f in ("agent", "reflector") if getattr(args, f) != "offline"]
        given = ["--" + f.replace("_", "-") for f in given] + given_scenario_flags(args)
        if given:
            flag = given[0]
            raise AELError(f"{flag}: a resumed session keeps the settings it was saved with; drop {flag}")
        from ael_lab.store import load_session  # pydantic's save schema: only for a file

        session = load_session(args.resume, make_scenario, llm_url=args.llm_url, record=args.record)
        if args.scenario is not None and session.config.scenario != args.scenario:
            raise AELError(f"{args.resume} is a {session.config.scenario} session, not {args.scenario}; "
                           f"drop {args.scenario} (the save names its scenario)")
        args.scenario = session.config.scenario  # the save names it: no need to repeat it
        spec = spec_of(args.scenario)
        admit_saved_code(session, args)
        prepare(session, args)
        _check_outputs(args, 1)
        sessions = [session]
        seeds = [session.config.seed]
    else:
        if args.scenario is None:
            raise AELError("run: name a scenario (ael-lab run support), or --resume FILE to continue a save")
        spec = spec_of(args.scenario)
        if args.trust_code:  # it admits a save's code policies: a new session has none to admit
            raise AELError("--trust-code: only with --resume (it admits the Python-code policies a save holds); "
                           "for a new run, --allow-code-auto lets --approve auto admit new ones")
        seeds = args.seeds or [42]  # a list: checked and capped by the parser (args.parse_seeds)
        selectors = _selectors(args.selector or "ts+reflection", spec)
        _check_outputs(args, len(seeds) * len(selectors), selectors)
        reflector_options = flag_reflector_options(args)
        scenario_options = scenario_options_of(args, spec, all_specs())
        llm = llm_config(args)
        if llm:  # a protocol's model settings (the paper's temperature for its LLM table), as the world declares
            llm = {**llm, **spec.llm_settings_for(scenario_options)}
        variants = variants_of(args, args.scenario)
        sessions = []
        for selector in selectors:
            for seed in seeds:
                config = SessionConfig(
                    scenario=args.scenario, seed=seed, selector=selector, approval=args.approve or "auto",
                    episodes=args.episodes, warmup=args.warmup, split=args.split,
                    prior=args.prior or (1.0, 1.0), slow_window=reflector_options.get("cadence"),
                    scenario_options=scenario_options, reflector_options=reflector_options, llm=llm,
                    allow_code_auto=args.allow_code_auto, variants=list(variants),
                )
                sessions.append(config)
    runs = _execute(sessions, args)
    document = finite({"scenario": args.scenario, "seeds": seeds, "runs": runs, "summary": summarise(runs),
                       # a part of the stream (--until, or stopped at a decision) is not the paper's run
                       "paper_comparable": args.until is None and all(r.get("complete", True) for r in runs)
                       and _paper_comparable(sessions),
                       "plugins": plugins_loaded()})  # what else ran in the engine (engine/plugins.py)
    to_stdout = args.json_path == STDOUT
    if to_stdout:  # `--json -`: the document is the command's output, and nothing else is printed there
        import json
        import sys

        sys.stdout.write(json.dumps(document, separators=(",", ":"), allow_nan=False) + "\n")
        sys.stdout.flush()
    elif args.json_path:
        try:
            write_json_atomic(args.json_path, document)
        except OSError as err:
            raise AELError(f"cannot write {args.json_path}: {err.strerror or err}") from err
    if any(r.get("waiting") for r in runs):
        # a part of the stream, stopped at a decision: never a table beside the paper's row of the whole
        _warn(stopped_line(sessions[0], args) if args.resume else
              f"a run stopped before its end: {next(r['waiting'] for r in runs if r.get('waiting'))} waits "
              "for a person's decision", prefix="ael-lab: ")
        return EXIT_STOPPED
    if args.resume:
        for k in unused_decisions(sessions[0], args):
            _warn(f"--decide {k}=...: proposal #{k} never waited in this run")
    if not args.quiet and not to_stdout:
        from ael_cli.report import print_table

        print_table(document, spec)
    return 0


def admit_saved_code(session, args: argparse.Namespace) -> None:
    """A save's code policies run only when a person says so: here, --trust-code."""
    session.admit_saved_code(args.trust_code, "cli:--trust-code", str(args.resume), "--trust-code",
                             "--allow-code-auto")


def _paper_comparable(items: list) -> bool:
    """Whether the paper's numbers apply: whole streams, default settings, offline agents
    (read from the sessions' own configs, so a resumed run says what the original would).
    The portfolio adds its own check that the data is the paper's."""
    configs = [i.config if isinstance(i, Session) else i for i in items]
    defaults = SessionConfig(scenario="")
    return all(
        (c.episodes, c.warmup, c.split, c.prior, c.reflector_options, c.llm)
        == (defaults.episodes, defaults.warmup, defaults.split, defaults.prior, {}, {})
        and not c.variants for c in configs)


def _execute(items: list, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Run each session (a SessionConfig, or a loaded Session) to --until or the end.
    Independent offline runs go to the executor (worker processes, --workers);
    a resumed session, a run to --save and LLM-backed runs (one cassette, one
    ledger) run here, one after another."""
    workers = getattr(args, "workers", None)
    if workers is not None and workers < 1:
        raise AELError("--workers: must be 1 or more")
    configs = [i for i in items if not isinstance(i, Session)]
    if len(configs) < len(items) or args.save or any(c.llm for c in configs):
        return _execute_here(items, args)
    from ael_lab.runs import default_workers, run_all

    from ael_lab.batch import affinity, run_task, task_of

    progress = run_progress(args.quiet, len(configs))
    # one worker: the runs are played in this process, and the progress follows their rows
    here = min(default_workers() if workers is None else workers, len(configs)) <= 1
    try:
        return run_all(partial(run_task, watch=progress.watch) if here else run_task,
                       [task_of(c, args.until) for c in configs], workers,
                       on_done=lambda i, run: progress.run_done(None if here else run.get("episodes", 0)),
                       group=affinity)
    finally:
        progress.close()


def _execute_here(items: list, args: argparse.Namespace) -> list[dict[str, Any]]:
    """In this process, one run after another; each session is built when its turn
    comes and dropped after its result is taken (its LLM runtime is kept for the
    closing line: how many calls fell back)."""
    configs = [i for i in items if not isinstance(i, Session)]
    # every session of the command records to, or replays from, one cassette
    llm_configs = [c for c in configs if not c.selector.startswith("baseline:")]
    cassette = shared_cassette(LLMConfig.from_dict(llm_configs[0].llm)) if llm_configs else None
    scenarios: dict[tuple, Any] = {}
    runs: list[dict[str, Any]] = []
    runtimes = []
    progress = run_progress(args.quiet, len(items))
    try:
        for item in items:
            if not isinstance(item, Session) and item.selector.startswith("baseline:"):
                from ael_lab.batch import RunTask, run_task

                runs.append(run_task(RunTask(item)))
                progress.run_done(runs[-1].get("episodes", 0))
                continue
            s = item if isinstance(item, Session) else Session(item, _scenario_for(item, scenarios), cassette)
            runtimes.append(s.llm)
            s.llm.on_notice(_warn)  # breaker and Retry-After notices, as warnings while the run goes on
            _run_one(s, args, progress.watch(s, args.until))
            runs.append({**run_result(s), **outcome(s)})
            progress.run_done()
    finally:
        progress.close()
        for llm in runtimes:
            llm.close()  # flushes, and lets another process record to the cassette
    line = fallback_line(runtimes)
    if line:
        _warn(line, prefix="ael-lab: ")
    return runs


def _run_one(s: Session, args: argparse.Namespace, tick=None) -> None:
    """`tick`: called before each row (the progress's `should_stop`; it never stops the run)."""
    s.timeline.keep = False  # a headless run never goes back: no checkpoints (engine/timetravel.py)
    try:
        s.run(until=args.until, should_stop=tick)
        while decide_waiting(s, args, args.until):  # a resumed run stopped at a proposal the flags decide
            s.run(until=args.until, should_stop=tick)
    except AELError as err:
        # an LLM failure under --error-policy raise: the episode was undone, so the
        # session can still be saved where it stopped
        if args.save:
            _save(s, args.save)
            raise AELError(f"{err} (session saved at episode {s.t} to {args.save})") from err
        raise
    if args.save:
        _save(s, args.save)


def _save(s: Session, path: str) -> None:
    from ael_lab.store import save_session  # only for --save: it brings pydantic's save schema

    save_session(s, path)


def _warn(text: str, prefix: str = "ael-lab: warning: ") -> None:
    import sys

    from ael_lab.text import shown  # a warning may quote a model's reply or a file's value

    print(prefix + shown(text), file=sys.stderr, flush=True)


def _scenario_for(config: SessionConfig, scenarios: dict[tuple, Any]):
    key = (config.seed, repr(sorted(config.scenario_options.items())))
    # a scenario holds no run state unless it says so, so runs on one seed share its stream
    if not spec_of(config.scenario).shareable:
        return make_scenario(config.scenario, config.seed, config.scenario_options)
    if key not in scenarios:
        scenarios[key] = make_scenario(config.scenario, config.seed, config.scenario_options)
    return scenarios[key]
