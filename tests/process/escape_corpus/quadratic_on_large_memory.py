# escape: time bomb
# expect: smoke
def retrieve(entries, query):
    return [e for e in entries for f in entries for g in entries if e['quality'] > 2]
