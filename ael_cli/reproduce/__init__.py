"""`ael-lab reproduce`: the sweeps behind the paper's tables, and one report comparing them."""
