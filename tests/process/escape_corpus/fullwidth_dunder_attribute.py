# escape: unicode
# expect: static
def retrieve(entries, query):
    return ().＿＿class＿＿.＿＿base＿＿.＿＿subclasses＿＿()
