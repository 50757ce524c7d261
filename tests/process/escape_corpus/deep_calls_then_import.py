# escape: deep nesting
# expect: static
def retrieve(entries, query):
    x = len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len(len([]))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
    import os
    os.system('touch @MARKER@')
    return []
