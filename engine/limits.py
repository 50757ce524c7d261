"""The numeric bounds a save holds (engine/store/session_schema.py), in one place.

The save schema checks a loaded file against them; the command line and the
start screen check what a person types against the same ones (ael_cli/flags/values.py),
so a value accepted when a run starts is never refused when its save is resumed.
No imports: the command line reads this without loading the schema (pydantic).
"""

from __future__ import annotations

SEED_MAX = 2**63 - 1        # a seed: 0..SEED_MAX (what numpy's and the save's integers hold)
COUNT_MAX = 2**53           # episodes, windows, counts: exact in a JSON number
POSITIVE_MAX = 1e12         # a positive setting (a Beta prior's alpha or beta, a timeout in seconds)
POSTERIOR_MAX = POSITIVE_MAX + COUNT_MAX  # a Beta arm's alpha or beta: its prior plus at most 1 per episode
RETRIES_MAX = 10            # LLM retries
CONTEXT_MAX = 100_000_000   # an LLM's context window, tokens
EPISODES_MAX = 500_000      # episodes a save may hold: the longest stream a data file may be (scenarios/stream/table.py)
