"""Model tests: run the real local model (marked slow).

tests/unit/test_kinds.py holds each module to the folder of its kind."""
