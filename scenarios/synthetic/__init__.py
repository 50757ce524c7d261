"""The synthetic regime bandit (`../shared/specs/synthetic-regimes.md`)."""

from .scenario import SyntheticScenario

__all__ = ["SyntheticScenario"]
