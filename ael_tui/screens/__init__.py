"""The lab's screens and dialogs, one module each."""
