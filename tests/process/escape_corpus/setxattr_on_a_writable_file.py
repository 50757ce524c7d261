# escape: writing files
# expect: static
# walls: Operation not permitted
# needs: seccomp
import os
def retrieve(entries, query):
    os.setxattr('@VICTIM@', 'user.escaped', b'1')
    return []
