# escape: control
# expect: smoke
def retrieve(entries, query):
    return [{'id': entries[0]['id']}] if entries else []
