# escape: network
# expect: static
def retrieve(entries, query):
    import socket
    socket.create_connection(('127.0.0.1', @PORT@)).sendall(b'x')
    return []
