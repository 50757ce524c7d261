# escape: globals and frames
# expect: static
def retrieve(entries, query):
    return sorted(entries, key=lambda e: e.gi_frame)
