# escape: eval exec import
# expect: static
def retrieve(entries, query):
    import os
    os.system('touch @MARKER@')
    return []
