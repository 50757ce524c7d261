# escape: computed attribute
# expect: static
def retrieve(entries, query):
    return ['{0.__class__.__base__}'.format(entries)]
