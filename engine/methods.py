"""Every way of choosing and learning, registered by name: the method contract.

A method is one class registered with `@register_method`: a name, a one-line
summary, typed options (`OptionSpec`), whether it takes an argument (the policy
of `fixed:POLICY`) and whether AEL's reflection may run on top of it
(`NAME+reflection`). A session asks its method for the selector that picks an
arm each episode, and for the reflector when reflection is on; what the method
learns is in that selector's fields (saved with the session, restored by
`Selector.from_dict`) and, for methods that keep more (the prior methods' own
memories), in `state_dict` / `load_state_dict`, saved under the session's
"method" key when not empty.

The selector text a person types, and a session config stores, is
`NAME[:ARGUMENT][(option=value,...)][+reflection]`, e.g. `ts+reflection`,
`fixed:none`, `egreedy(epsilon=0.05)`. The CLI, the start screen and the compare
view list `method_names()` and `method_help()`; a scenario's spec says which of
them it offers.
"""

from __future__ import annotations

from .bandits import EpsilonGreedy, FixedPolicy, Oracle, RoundRobin, Selector, ThompsonSampling, UCB1
from .method_base import (  # noqa: F401  (the contract, re-exported: callers import engine.methods)
    METHODS, REFLECTION, Method, UnknownMethod, method_help, method_names, offered_help, parse_method,
    register_method, split_methods,
)
from .options import OptionSpec


# ------------------------------------------------------------------ the built-in methods
@register_method
class TS(Method):
    name = "ts"
    summary = "Thompson sampling: one Beta draw per arm, the highest plays (the paper's bandit)"
    selector_class = ThompsonSampling


@register_method
class UCB(Method):
    name = "ucb1"
    summary = "UCB1: each arm once, then the best mean plus an exploration bonus"
    selector_class = UCB1


@register_method
class EGreedy(Method):
    name = "egreedy"
    summary = "epsilon-greedy: a random arm with probability epsilon, else the best mean"
    selector_class = EpsilonGreedy
    options = (OptionSpec("epsilon", float, 0.1, "the share of random choices", minimum=0.0, maximum=1.0),)


@register_method
class RR(Method):
    name = "rr"
    summary = "round-robin: every arm in turn"
    selector_class = RoundRobin


@register_method
class Fixed(Method):
    name = "fixed"
    summary = ("one policy every episode; with +reflection the insights are applied and no arm is injected "
               "(the paper's single fixed policy with reflection)")
    selector_class = FixedPolicy
    argument = "POLICY"
    # the bandit is bypassed, so a proposed arm could never play: reflection here is insights only
    injects_arms = False

    def make_selector(self, arms: list[str], prior: tuple[float, float]) -> Selector:
        sel = super().make_selector(arms, prior)
        sel.arm_name = self.arg or ""
        sel.index(sel.arm_name)  # refuses an unknown policy now, not mid-run
        return sel


@register_method
class OracleMethod(Method):
    name = "oracle"
    summary = "hindsight: the best arm of each episode, which the scenario names"
    selector_class = Oracle
    hindsight = True


# ------------------------------------------------------------------ the prior methods
from . import prior as _prior  # noqa: E402,F401,I001  (registers reflexion, expel, meta-reflexion...)


# ------------------------------------------------------------------ methods from other packages
from . import plugins as _plugins  # noqa: E402,I001

# an `ael_lab.methods` entry point: NAME = "module:Class", a Method subclass named NAME
PLUGINS = _plugins.Kind(_plugins.METHODS, METHODS, "an engine.methods.Method subclass", _plugins.subclass_of(Method))
_admit_plugin = PLUGINS.admit
PLUGINS.read()
