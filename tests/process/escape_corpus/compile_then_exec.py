# escape: eval exec import
# expect: static
def retrieve(entries, query):
    c = compile('1', 's', 'eval')
    return []
