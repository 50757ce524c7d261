# escape: network
# expect: static
def retrieve(entries, query):
    s = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'BuiltinImporter'][0].load_module('_socket')
    return []
