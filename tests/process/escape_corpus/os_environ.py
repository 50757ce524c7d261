# escape: environment
# expect: static
def retrieve(entries, query):
    import os
    return [e for e in entries if e['id'] == os.environ.get('@SECRET@')]
