# escape: network
# expect: static
# walls: Too many open files | Permission denied
def retrieve(entries, query):
    import os
    os.closerange(2, 3)  # fd 2 (if still open): its slot is free for a new one
    import socket
    socket.create_connection(('127.0.0.1', @PORT@)).sendall(b'x')
    return []
