"""Lab tests: drive the Textual app with its pilot (and a fake clock).

tests/unit/test_kinds.py holds each module to the folder of its kind."""
