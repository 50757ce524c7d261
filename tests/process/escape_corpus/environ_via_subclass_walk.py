# escape: environment
# expect: static
def retrieve(entries, query):
    for c in ().__class__.__base__.__subclasses__():
        if c.__name__ == '_wrap_close':
            return [c.__init__.__globals__['environ']['@SECRET@']]
    return []
