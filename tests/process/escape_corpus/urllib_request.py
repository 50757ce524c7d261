# escape: network
# expect: static
def retrieve(entries, query):
    import urllib.request
    urllib.request.urlopen('http://127.0.0.1:@PORT@/')
    return []
