# escape: subclass walk
# expect: static
def retrieve(entries, query):
    e = entries[0]
    return e.__class__.__base__.__subclasses__()
