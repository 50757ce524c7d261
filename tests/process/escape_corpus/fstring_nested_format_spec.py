# escape: computed attribute
# expect: static
def retrieve(entries, query):
    w = 'x'
    return [f'{entries!r:{w}}']
