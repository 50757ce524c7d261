# escape: decorators and lambdas
# expect: static
def retrieve(entries, query):
    f = lambda m=__import__('os'): m.system('touch @MARKER@')
    return []
