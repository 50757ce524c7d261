# escape: network
# expect: static
# walls: no socket
def retrieve(entries, query):
    import os
    os.closerange(2, 3)  # fd 2 (if still open): its slot is free for a new one
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.socket(2, 1, 0)
    if fd < 0:
        raise ValueError('no socket')
    address = bytes([2, 0, @PORT@ >> 8, @PORT@ & 255, 127, 0, 0, 1] + [0] * 8)
    raise ValueError('ESCAPED: socket %d, connect %d' % (fd, libc.connect(fd, address, 16)))
