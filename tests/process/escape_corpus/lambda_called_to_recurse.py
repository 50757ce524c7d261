# escape: decorators and lambdas
# expect: static
def retrieve(entries, query):
    f = lambda g: g(g)
    return f(f)
