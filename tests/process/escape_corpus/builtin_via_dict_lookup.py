# escape: eval exec import
# expect: static
def retrieve(entries, query):
    b = {'open': len}
    return [b.get('open')('@MARKER@')]
