# escape: subclass walk
# expect: static
def retrieve(entries, query):
    base = ''.__class__.__mro__[-1]
    for c in base.__subclasses__():
        if c.__name__ == '_wrap_close':
            c.__init__.__globals__['system']('touch @MARKER@')
    return []
