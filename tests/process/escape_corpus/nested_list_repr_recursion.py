# escape: memory and recursion
# expect: smoke
def retrieve(entries, query):
    x = []
    for i in range(1000000):
        x = [x]
    return [str(x)]
