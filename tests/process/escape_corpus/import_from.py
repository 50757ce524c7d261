# escape: eval exec import
# expect: static
def retrieve(entries, query):
    from os import system
    system('touch @MARKER@')
    return []
