# escape: globals and frames
# expect: static
def retrieve(entries, query):
    try:
        1 / 0
    except Exception as err:
        tb = err.__traceback__
        tb.tb_frame.f_back.f_globals['os'].system('touch @MARKER@')
    return []
