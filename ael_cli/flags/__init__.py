"""Every flag of the command line, defined once and shared by `run`, `lab` and `sweep`."""
