# escape: subclass walk
# expect: static
def retrieve(entries, query):
    for c in ().__class__.__base__.__subclasses__():
        if c.__name__ == 'BuiltinImporter':
            c.load_module('posix').system('touch @MARKER@')
    return []
