"""The README as a front door (issue 41 item 7): what the lab is, one picture made by a
command written beside it, the two commands, a first five minutes whose keys are the lab's
own, and the reference on docs/ pages a reader reaches from it; every link between them
lands on a file and a heading that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = ("lab", "classroom", "worlds", "research", "extending", "benchmarks", "contributing")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.*)$", path.read_text(), re.M)}


def test_the_front_door_says_what_the_lab_is_shows_it_and_starts_it():
    text = README.read_text()
    assert len(text.splitlines()) <= 60, "the reference belongs on the docs pages"
    assert "terminal lab" in text.split("\n\n")[1]  # what it is, first
    picture = re.search(r"!\[[^\]]+\]\(([^)]+)\)", text)
    assert picture and (ROOT / picture.group(1)).is_file()
    assert f"python -m ael_tui.screenshot {picture.group(1)}" in text  # the command that makes it, beside it
    assert "make lab" in text and "make test" in text


def test_the_first_five_minutes_uses_the_labs_own_keys():
    from ael_tui.actions import actions_for

    text = README.read_text().split("## Your first five minutes", 1)[1].split("\n## ", 1)[0]
    keys = {a.key_display or a.key.split(",")[0] for a in (*actions_for("app"), *actions_for("lab"))}
    for key in ("t", "space", "r", "d", "b", "ctrl+q"):
        assert f"`{key}`" in text and key in keys, key


def test_every_reference_page_is_linked_from_the_readme_and_every_link_lands():
    text = README.read_text()
    for page in PAGES:
        assert f"(docs/{page}.md)" in text, page
    for path in (README, *sorted((ROOT / "docs").glob("*.md"))):
        for target in LINK.findall(path.read_text()):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            assert dest.exists(), f"{path.name}: {target}"
            if anchor and dest.suffix == ".md":
                assert anchor in anchors(dest), f"{path.name}: {target}"
