"""The lab: one session, stepped by keys in a worker, every panel of it, and the records it opens."""
