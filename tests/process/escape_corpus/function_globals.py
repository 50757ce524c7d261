# escape: globals and frames
# expect: static
def retrieve(entries, query):
    f = lambda: 0
    g = f.__globals__
    g['__builtins__']['open']('@MARKER@', 'w').write('x')
    return []
