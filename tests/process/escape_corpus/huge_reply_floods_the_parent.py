# escape: memory and recursion
# expect: smoke
def retrieve(entries, query):
    return entries * 3000
