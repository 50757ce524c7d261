# escape: memory and recursion
# expect: static
def retrieve(entries, query):
    return retrieve(entries, query)
