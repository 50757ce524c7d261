"""The compare view: several selectors on one stream, stepped in lockstep."""
