# escape: subclass walk
# expect: static
def retrieve(entries, query):
    t = type(entries)
    return t.mro()[-1].__subclasses__()
