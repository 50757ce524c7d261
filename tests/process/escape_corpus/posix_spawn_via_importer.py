# escape: fork and grandchildren
# expect: static
def retrieve(entries, query):
    p = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'BuiltinImporter'][0].load_module('posix')
    p.posix_spawn('/bin/sh', ['sh', '-c', 'touch @MARKER@'], {})
    return []
