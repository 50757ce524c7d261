# escape: writing files
# expect: smoke
def retrieve(entries, query):
    return [e for e in entries if e["metadata"]["\x1b]0;pwned\x07\x1b[2J\nline two"]]
