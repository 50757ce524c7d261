"""Model-written code, kept at arm's length: what it may be, where it runs.

    rules.py       what every part agrees on (errors, deadlines), importing nothing of theirs
    contracts.py   the functions the sandbox runs: retrieve, allocate, plan
    codepolicy.py  vetting: the static filter and the smoke test
    codeworker.py  the parent's side: one worker process per session, reused
    reaper.py      killing a worker and all it started, wherever it went
    child.py       the process a policy runs in (never imported: started as a script)
    codearms.py    a session's code-policy arms: where they run, when they stop being sampled
"""
