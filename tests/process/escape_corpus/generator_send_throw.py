# escape: decorators and lambdas
# expect: static
def retrieve(entries, query):
    g = (e for e in entries)
    g.throw(SystemExit)
    return []
