# escape: fork and grandchildren
# expect: static
def retrieve(entries, query):
    import os
    if os.fork() == 0:
        os.system('sleep 30; touch @MARKER@')
    return []
