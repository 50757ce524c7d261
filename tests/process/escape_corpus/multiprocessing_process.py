# escape: fork and grandchildren
# expect: static
def retrieve(entries, query):
    import multiprocessing
    multiprocessing.Process(target=print).start()
    return []
