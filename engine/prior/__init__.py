"""The paper's prior methods as registered methods (engine/methods.py, contract 2).

`base.py`: what they share (the session's hooks, the selector that plays one
base policy, `Shown`, the lab's `Table`); `world.py`: what a world supplies
(the deterministic critic, directives, keys, the LLM critic's prompt);
`llm_critic.py`: the critic as an LLM call. One module per method; importing
this package registers them. The mechanisms of EvoTool, FactorMiner and
HyperAgent are world-independent modules of their own (`tool_population.py`,
`skill_book.py`, `generation_search.py`).
"""

from .base import PriorMethod, Shown, Table, is_prior  # noqa: F401
from . import reflexion, expel, meta_reflexion  # noqa: F401,I001  (registers them, in the paper's order)
from . import evotool, factorminer, hyperagent  # noqa: F401,I001

PRIOR_ORDER = ("reflexion", "expel", "meta-reflexion", "evotool", "factorminer", "hyperagent")
