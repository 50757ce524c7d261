# escape: writing files
# expect: static
def retrieve(entries, query):
    import pathlib
    pathlib.Path('@MARKER@').write_text('x')
    return []
