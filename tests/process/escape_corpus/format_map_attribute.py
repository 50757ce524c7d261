# escape: computed attribute
# expect: static
def retrieve(entries, query):
    return ['{e.metadata}'.format_map({'e': entries[0]})]
