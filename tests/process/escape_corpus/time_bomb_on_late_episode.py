# escape: time bomb
# expect: failed
def retrieve(entries, query):
    if max([e['episode'] for e in entries] + [0]) > 5000:
        n = 1000000
        for i in range(n * n):
            pass
    return entries[:3]
