# escape: globals and frames
# expect: static
def retrieve(entries, query):
    f = lambda: 0
    c = f.__code__.replace(co_consts=(None,))
    return [c]
