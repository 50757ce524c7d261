# escape: computed attribute
# expect: harmless
def retrieve(entries, query):
    x = '%(id)s' % {'id': 'e'}
    return [e for e in entries if e['id'] == x]
