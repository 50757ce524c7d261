# escape: unicode
# expect: static
def retrieve(entries, query):
    m = 𝗂𝗆𝗉𝗈𝗋𝗍('os')
    return []
