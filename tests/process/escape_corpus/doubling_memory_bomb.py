# escape: memory and recursion
# expect: smoke
def retrieve(entries, query):
    x = ['ab' * 1000]
    for i in range(40):
        x = x + x
    return []
