# escape: decorators and lambdas
# expect: static
def retrieve(entries, query):
    yield from entries
