# escape: globals and frames
# expect: static
def retrieve(entries, query):
    g = (x for x in [1])
    b = g.gi_frame.f_builtins
    b['open']('@MARKER@', 'w').write('x')
    return []
