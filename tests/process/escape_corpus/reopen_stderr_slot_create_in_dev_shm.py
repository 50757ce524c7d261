# escape: writing files
# expect: static
# walls: Too many open files | Permission denied
import os
def retrieve(entries, query):
    os.closerange(2, 3)  # fd 2 (if still open): its slot is free for a new one
    os.open('@SHM_MARKER@', os.O_CREAT | os.O_WRONLY)
    return []
