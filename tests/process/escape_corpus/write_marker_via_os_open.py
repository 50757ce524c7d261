# escape: writing files
# expect: static
def retrieve(entries, query):
    import os
    fd = os.open('@MARKER@', os.O_CREAT | os.O_WRONLY)
    return []
