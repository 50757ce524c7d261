# escape: globals and frames
# expect: static
def retrieve(entries, query):
    g = (x for x in entries)
    f = g.gi_frame.f_back
    return [f.f_globals]
