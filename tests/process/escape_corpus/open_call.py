# escape: eval exec import
# expect: static
def retrieve(entries, query):
    open('@MARKER@', 'w').write('x')
    return []
