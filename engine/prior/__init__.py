"""The prior self-improving methods of the paper's tables, as mechanisms (world-independent)."""
