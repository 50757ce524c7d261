"""Sessions in and out: the start screen, building and opening sessions, saves, loads, exports."""
