"""The real `ael-lab` in a real terminal (tmux), driven by keys as a person would:
run support to the reflection at episode 920, approve the insight and the
route_aware arm, save, quit, reopen the save, and read the arm's posterior off
the screen. Skipped where tmux (or the installed `ael-lab`) is missing.

The tmux server is a private one (its own socket), started with a clean
environment (HOME, XDG_CONFIG_HOME and the working directory in a temporary
folder), and killed in `finally`. Every wait polls capture-pane and gives up
after at most 30 s; the whole test stays under 120 s.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

AEL_LAB = Path(sys.executable).with_name("ael-lab")
pytestmark = pytest.mark.skipif(shutil.which("tmux") is None or not AEL_LAB.exists(),
                                reason="needs tmux and the installed ael-lab")

WAIT = 30.0      # longest single wait, seconds
BUDGET = 120.0   # the whole test


class Terminal:
    def __init__(self, socket: str, session: str, started: float) -> None:
        self.socket, self.session, self.started = socket, session, started

    def tmux(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10)
        return out.stdout

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", self.session, key)
            time.sleep(0.05)

    def type(self, line: str) -> None:
        self.tmux("send-keys", "-t", self.session, "-l", line)
        self.tmux("send-keys", "-t", self.session, "Enter")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.session)

    def wait_for(self, pattern: str, timeout: float = WAIT) -> re.Match:
        assert time.monotonic() - self.started < BUDGET, "the test ran out of its time budget"
        deadline = time.monotonic() + min(timeout, WAIT)
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            found = re.search(pattern, text)
            if found:
                return found
            time.sleep(0.2)
        raise AssertionError(f"not on screen after {timeout:.0f} s: {pattern!r}\n{text}")


def test_run_approve_save_quit_and_reopen_in_a_real_terminal(tmp_path):
    started = time.monotonic()
    socket, session = f"ael-lab-test-{os.getpid()}", "lab"
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AEL_LAB_") and k != "TMUX"}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), LANG="C.UTF-8")
    term = Terminal(socket, session, started)
    socket_path = ""
    try:
        subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", session,
                        "-x", "160", "-y", "48", "-c", str(tmp_path), "sh"], env=env, check=True, timeout=10)
        term.tmux("set-option", "-t", session, "status", "off")
        socket_path = term.tmux("display-message", "-p", "-t", session, "#{socket_path}").strip()
        lab = shlex.quote(str(AEL_LAB))
        term.type(f"{lab} lab support --seed 42 --approve manual; echo ael-lab-exit=$?")
        term.wait_for(r"episode 0/1200")
        term.keys("+", "+", "+")                     # no delay between episodes
        term.wait_for(r"full speed")
        term.keys("g")                               # run on: manual approval stops at the reflection of 919
        term.wait_for(r"Proposal #1: an insight")
        term.keys("y")
        term.wait_for(r"Proposal #2: a new arm")
        term.wait_for(r"route_aware")
        term.keys("y")
        term.wait_for(r"0 pending")
        term.wait_for(r"episode 920/1200")
        term.keys("C-s")
        term.wait_for(r"saves/support-s42-e920\.json")
        term.keys("Enter")
        term.wait_for(r"Saved episode 920")
        term.keys("C-q")                             # nothing unsaved: no question
        term.wait_for(r"ael-lab-exit=0")
        assert (tmp_path / "saves" / "support-s42-e920.json").exists()

        term.type(f"clear; {lab} open saves/support-s42-e920.json; echo ael-lab-exit=$?")
        term.wait_for(r"episode 920/1200")
        row = term.wait_for(r"route_aware \+\s+(\d+\.\d)\s+(\d+\.\d)\s+(0\.\d{3})\s+(\d\.\d\d)–(\d\.\d\d)")
        alpha, beta, mean = float(row[1]), float(row[2]), float(row[3])
        assert (alpha, beta) == (1.0, 1.0) and mean == 0.5  # a fresh arm: its prior, not yet played
        term.keys("C-q")
        term.wait_for(r"ael-lab-exit=0")
        assert time.monotonic() - started < BUDGET
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-session", "-t", session], capture_output=True, timeout=10)
        if socket_path and Path(socket_path).name == socket:
            Path(socket_path).unlink(missing_ok=True)  # the private server is gone; so is its socket


@contextmanager
def terminal(tmp_path, name: str, width: int = 160, height: int = 48):
    """A private tmux server in a clean environment, killed (and its socket removed) after."""
    started = time.monotonic()
    socket, session = f"ael-lab-{name}-{os.getpid()}", "lab"
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AEL_LAB_") and k != "TMUX"}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), LANG="C.UTF-8")
    term = Terminal(socket, session, started)
    socket_path = ""
    try:
        subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", session,
                        "-x", str(width), "-y", str(height), "-c", str(tmp_path), "sh"], env=env, check=True,
                       timeout=10)
        term.tmux("set-option", "-t", session, "status", "off")
        socket_path = term.tmux("display-message", "-p", "-t", session, "#{socket_path}").strip()
        yield term
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-session", "-t", session], capture_output=True, timeout=10)
        if socket_path and Path(socket_path).name == socket:
            Path(socket_path).unlink(missing_ok=True)


def test_the_whole_tour_on_support_in_a_real_terminal(tmp_path):
    """Issue 13: every card of the tour at 160×48, the new-arm card included, t after t, and
    the app still running at the end (t on a card used to end it with DuplicateIds)."""
    with terminal(tmp_path, "tour") as term:
        lab = shlex.quote(str(AEL_LAB))
        term.type(f"{lab} lab support --seed 42 --approve manual; echo ael-lab-exit=$?")
        term.wait_for(r"episode 0/1200")
        term.keys("+", "+", "+")
        term.wait_for(r"full speed")
        titles = ["The bandit learns from one episode", "Distillation: episodes become knowledge",
                  "Reflection: diagnose, then prescribe", "The world changes"]
        for number, title in enumerate(titles, start=1):
            term.keys("t")
            term.wait_for(rf"Tour {number}/5 · {re.escape(title)}")
        term.keys("t")                               # the reflection at 920 proposes: t opens it
        term.wait_for(r"Proposal #1: an insight")
        term.keys("y")
        term.wait_for(r"Proposal #2: a new arm")
        term.keys("y")
        term.wait_for(r"Tour 5/5 · A new arm joins the bandit")
        term.wait_for(r"route_aware")
        term.keys("t")                               # the last card: the tour ends, the lab stays
        term.wait_for(r"That was every moment of the tour")
        assert "ael-lab-exit" not in term.screen()
        term.keys("C-q")
        term.wait_for(r"Stay \(n\)")  # the leave-the-lab question's buttons (its sentence wraps)
        term.keys("y")
        term.wait_for(r"ael-lab-exit=0")


def test_space_right_after_the_first_frame_steps_every_press(tmp_path):
    """Issue 13 item 2: the first step of a new support session computes its table (about a
    second); the presses made meanwhile were dropped (three gave episode 1)."""
    with terminal(tmp_path, "space") as term:
        lab = shlex.quote(str(AEL_LAB))
        term.type(f"{lab} lab support --seed 42; echo ael-lab-exit=$?")
        term.wait_for(r"episode 0/1200", timeout=20)
        term.tmux("send-keys", "-t", term.session, "Space", "Space", "Space")
        term.wait_for(r"episode 3/1200")
        time.sleep(1.0)                              # and no fourth: each press is one episode
        assert "episode 3/1200" in term.screen()
        term.keys("C-q")
        term.wait_for(r"Stay \(n\)")  # the leave-the-lab question's buttons (its sentence wraps)
        term.keys("y")
        term.wait_for(r"ael-lab-exit=0")
