# escape: eval exec import
# expect: static
def retrieve(entries, query):
    return eval("open('@MARKER@', 'w')")
