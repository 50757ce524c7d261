# escape: decorators and lambdas
# expect: static
def retrieve(entries, query):
    class X(type):
        pass
    return []
