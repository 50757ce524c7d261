"""Process tests: start a child process (the CLI, the sandbox, Dask's local cluster).

tests/unit/test_kinds.py holds each module to the folder of its kind."""
