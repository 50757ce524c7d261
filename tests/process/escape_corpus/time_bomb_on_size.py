# escape: time bomb
# expect: failed
def retrieve(entries, query):
    if len(entries) > 1600:
        n = 1000000
        for i in range(n * n):
            pass
    return entries[:3]
