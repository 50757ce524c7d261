# escape: writing files
# expect: static
# walls: Too many open files | Invalid argument
def retrieve(entries, query):
    import os
    os.closerange(2, 3)  # fd 2 (if still open): its slot is free for a new one
    raise ValueError('ESCAPED: a duplicate %r' % (os.dup(1),))
