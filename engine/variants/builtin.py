"""The variants shipped with the lab: each imports its module, which registers it.

A new variant: a module with a `@register_variant` class (engine/variants/__init__.py),
one import line here, and, if it keeps state, a model of it named by the class's
`state_model` (the built-in ones are in engine/variants/states.py).
"""

from __future__ import annotations

from . import tools  # noqa: F401  no-tools, per-tool, cold-start
from . import planners  # noqa: F401  planners
from . import shuffled  # noqa: F401  shuffled-reflection
from . import memory_credit  # noqa: F401  credit=uniform|fcc|llm-fcc
from . import skills  # noqa: F401  skills
from . import procedural  # noqa: F401  task-procedural
