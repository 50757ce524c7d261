"""Unit tests: no Textual app, no server, no child process, no model; `make quick` runs this folder.

tests/unit/test_kinds.py holds each module to the folder of its kind."""
