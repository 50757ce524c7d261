# escape: writing files
# expect: static
def retrieve(entries, query):
    import sys
    sys.stdout.write('{"ok": true, "ids": []}\n')
    return []
