# escape: eval exec import
# expect: static
def retrieve(entries, query):
    m = importlib.import_module('os')
    return []
