# escape: fork and grandchildren
# expect: static
def retrieve(entries, query):
    import subprocess
    subprocess.Popen(['sh', '-c', 'sleep 2; touch @MARKER@'], start_new_session=True)
    return []
