"""Steer a run from code: support, seed 42, manual approval.

The run stops at episode 920, where the reflection proposes an insight (#1) and a new arm
(#2). This script approves the insight, rejects the arm, and lets the rest of the run go
as `ael-lab run` goes (approval auto). Its results are those of the CLI with the same
decisions (tests/unit/test_library_decisions.py checks it):

    ael-lab run support --seeds 42 --until 921 --save a.json
    ael-lab branch a.json --at 920 --decide 2=reject --save b.json
    ael-lab run support --resume b.json --json -

Run it: .venv/bin/python examples/library_decisions.py   (prints the results as JSON)
It uses only the names docs/api.md documents.
"""

import json

import ael_lab


def play():
    s = ael_lab.new("support", seed=42, approval="manual")
    s.run()  # stops where proposals wait: episode 920
    s.approve(1, reason="routing by endpoint matches what the misses show")
    s.reject(2, reason="keep the pool as it is; the insight is enough")
    s.approval = "auto"  # what nobody decides from here on is decided as `ael-lab run` decides it
    s.run()
    return s


if __name__ == "__main__":
    session = play()
    print(json.dumps(session.results(), indent=1))
    print(f"history: {len(session.history())} rows, one per episode")
