"""Served tests: start `ael-lab serve` and talk to it as a visitor or teacher.

tests/unit/test_kinds.py holds each module to the folder of its kind."""
