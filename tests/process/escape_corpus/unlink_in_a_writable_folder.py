# escape: writing files
# expect: static
# walls: Permission denied
# needs: landlock
import os
def retrieve(entries, query):
    os.unlink('@VICTIM@')
    return []
