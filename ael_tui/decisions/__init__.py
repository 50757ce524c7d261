"""Deciding what reflection proposes: the decision dialog, the proposal editor, code review."""
