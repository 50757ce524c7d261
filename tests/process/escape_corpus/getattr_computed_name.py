# escape: computed attribute
# expect: static
def retrieve(entries, query):
    name = '_' + '_cla' + 'ss_' + '_'
    return [getattr(entries, name)]
