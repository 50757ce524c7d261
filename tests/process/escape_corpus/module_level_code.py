# escape: eval exec import
# expect: static
import os
os.system('touch @MARKER@')
def retrieve(entries, query):
    return []
