"""`ael-lab serve`: the lab in a browser, one app process per visitor (textual-serve).

mode.py    what a served lab may do (its folder, its backends, its data), read by the app
quota.py   what one visitor's lab wrote into the folder, and the quota on it
lab.py     the app process a visitor gets (`python -m ael_tui.serve.lab`)
server.py  the web server: session cap (in all, per address), idle limit, the app's environment
command.py the `ael-lab serve` command
teacher.py the teacher's page and its key (a cookie for the key, a quiet log, wrong keys slowed)
supervise.py the fork server restarted when it dies; labs and fork server ending with the server
"""
