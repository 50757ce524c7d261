# escape: globals and frames
# expect: static
def retrieve(entries, query):
    return __builtins__['open']('@MARKER@', 'w')
