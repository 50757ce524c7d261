# escape: writing files
# expect: static
# walls: Permission denied | Operation not permitted
# needs: landlock
import os
def retrieve(entries, query):
    os.link('@VICTIM@', '@MARKER@')
    return []
