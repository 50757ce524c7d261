# escape: time bomb
# expect: failed
def retrieve(entries, query):
    if query.get('regime') == 'crash':
        n = 1000000
        for i in range(n * n):
            pass
    return entries[:3]
