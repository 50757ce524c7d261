"""The one exception type a user can cause.

Anything a person can fix (a bad flag, a corrupt save, an invalid edited
policy, a failing LLM call under the `raise` policy) raises `AELError` with a
message they can act on. The CLI prints it as one line and exits with 2; the
lab shows it as a notification. Every other exception is a bug.
"""


class AELError(Exception):
    """A problem the user can fix; its message is shown as is."""
