"""The `ael-lab` command line: every flag defined once, and the headless commands.

    main.py        the parser and the dispatch (`ael-lab` opens the lab: ael_tui, imported only then)
    flags/         each flag once: its value type (values.py), the scenario's, the model's, the variants',
                   the reflection gate's (reflection_flags.py); the lab reads a session's flags from here too
    runner.py      `ael-lab run`: sessions headless, in parallel, into report.py's table and JSON
    sweep/         `ael-lab sweep`: a grid on every core or a Dask cluster, into a resumable store
    reproduce/     `ael-lab reproduce`: the paper's tables run and set beside its numbers
    replay_command.py, timetravel_command.py   `replay`, `branch`, `explain` on saved runs
    batch.py, outputs.py   what several runs share; output files that never replace what was not named

Nothing here imports Textual: the lab is one command among the others.
"""
