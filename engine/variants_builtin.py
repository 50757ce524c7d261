"""The variants shipped with the lab: each imports its module, which registers it.

A new variant: a module with a `@register_variant` class (engine/variants.py),
one import line here, and, if it keeps state, a model of it named by the class's
`state_model` (the built-in ones are in engine/variant_states.py).
"""

from __future__ import annotations

from . import variant_tools  # noqa: F401  no-tools, per-tool, cold-start
from . import variant_planners  # noqa: F401  planners
from . import variant_shuffled  # noqa: F401  shuffled-reflection
from . import variant_credit  # noqa: F401  credit=uniform|fcc|llm-fcc
from . import variant_skills  # noqa: F401  skills
from . import variant_procedural  # noqa: F401  task-procedural
