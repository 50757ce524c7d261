"""Whether this process may download data (a served lab's visitor may not).

`ael-lab serve` sets `AEL_LAB_NO_DOWNLOADS=1` in every visitor's app process, so a
scenario that would otherwise fetch its data (scikit-learn's 20 Newsgroups, Yahoo
Finance) refuses with one line instead, even if a path around the served lab's own
checks is found (a save whose options ask for it, say). Data already on disk is
still read.
"""

from __future__ import annotations

import os
from typing import Mapping

NO_DOWNLOADS = "AEL_LAB_NO_DOWNLOADS"


def downloads_allowed(env: Mapping[str, str] | None = None) -> bool:
    return not (os.environ if env is None else env).get(NO_DOWNLOADS)
