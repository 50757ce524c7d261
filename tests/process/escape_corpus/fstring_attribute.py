# escape: computed attribute
# expect: static
def retrieve(entries, query):
    return [f'{entries.__class__.__base__.__subclasses__()}']
