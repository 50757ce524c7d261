# escape: memory and recursion
# expect: smoke
def retrieve(entries, query):
    s = 'a' * 1000000
    t = s * 1000000
    return []
