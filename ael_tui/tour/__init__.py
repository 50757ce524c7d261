"""The guided tour: the method's key moments found in a session's events, and their cards."""
