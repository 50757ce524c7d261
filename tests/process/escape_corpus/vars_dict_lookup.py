# escape: computed attribute
# expect: static
def retrieve(entries, query):
    return [vars(entries)['_' + '_dict_' + '_']]
