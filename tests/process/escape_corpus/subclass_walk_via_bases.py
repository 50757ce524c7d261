# escape: subclass walk
# expect: static
def retrieve(entries, query):
    return [c for c in {}.__class__.__bases__[0].__subclasses__() if 'warning' in c.__name__]
