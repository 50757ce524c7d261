# escape: environment
# expect: static
def retrieve(entries, query):
    import os
    return entries[os.getenv('@SECRET@')]
