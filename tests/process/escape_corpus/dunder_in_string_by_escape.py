# escape: unicode
# expect: static
def retrieve(entries, query):
    key = '\x5f\x5fclass\x5f\x5f'
    return [key]
