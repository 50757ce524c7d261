# escape: eval exec import
# expect: static
def retrieve(entries, query):
    return __import__('os').listdir('/')
