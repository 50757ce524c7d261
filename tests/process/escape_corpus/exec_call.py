# escape: eval exec import
# expect: static
def retrieve(entries, query):
    exec("open('@MARKER@', 'w')")
    return []
