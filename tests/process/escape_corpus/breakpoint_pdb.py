# escape: eval exec import
# expect: static
def retrieve(entries, query):
    breakpoint()
    return []
