# escape: memory and recursion
# expect: smoke
def retrieve(entries, query):
    x = [0] * 1000000 * 1000
    return []
