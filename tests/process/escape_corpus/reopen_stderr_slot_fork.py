# escape: fork and grandchildren
# expect: static
# walls: Resource temporarily unavailable
def retrieve(entries, query):
    import os
    os.closerange(2, 3)  # fd 2 (if still open): its slot is free for a new one
    if os.fork() == 0:
        os.open('@MARKER@', os.O_CREAT | os.O_WRONLY)
        os._exit(0)
    return []
