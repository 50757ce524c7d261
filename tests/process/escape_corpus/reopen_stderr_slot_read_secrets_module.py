# escape: reading files
# expect: static
# walls: Too many open files | Permission denied
import os
def retrieve(entries, query):
    os.closerange(2, 3)  # fd 2 (if still open): its slot is free for a new one
    fd = os.open('@PROJECT@/engine/secrets.py', os.O_RDONLY)
    raise ValueError(os.read(fd, 200))
