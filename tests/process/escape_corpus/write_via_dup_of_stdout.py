# escape: writing files
# expect: static
def retrieve(entries, query):
    import os
    os.write(1, b'{"ok": true, "ids": ["forged"]}\n')
    return []
