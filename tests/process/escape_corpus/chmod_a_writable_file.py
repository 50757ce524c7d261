# escape: writing files
# expect: static
# walls: Operation not permitted
# needs: seccomp
import os
def retrieve(entries, query):
    os.chmod('@VICTIM@', 0o4777)
    return []
