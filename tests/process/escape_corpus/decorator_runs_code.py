# escape: decorators and lambdas
# expect: static
@__import__('os').system
def retrieve(entries, query):
    return []
