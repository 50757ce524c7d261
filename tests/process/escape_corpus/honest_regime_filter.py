# escape: control
# expect: harmless
def retrieve(entries, query):
    same = [e for e in entries if e['metadata'].get('regime') == query.get('regime')]
    return sorted(same, key=lambda e: e['quality'], reverse=True)[:5]
