# escape: decorators and lambdas
# expect: static
def retrieve(entries, query):
    return [(m := e) for e in entries if m.__class__]
