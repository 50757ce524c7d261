"""A served lab touches nothing but its sessions folder and the loopback (issue 27, finding 5):
no download of any kind (the news world only from the teacher's local copy), a visitor's
process keeps its home, temporary files and caches in the folder, a quota on what each
visitor writes, and a limit on the labs one address may hold."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from textual.widgets import Select, Static

from ael_cli.main import main
from ael_tui.widgets.opening import NewSession, build_session
from ael_tui.files.start_screen import StartScreen
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.serve.lab import ServedLab
from ael_tui.serve.mode import PRIVATE, ServedMode
from ael_tui.serve.quota import MIB, VisitorFiles
from ael_tui.serve.server import SessionCap, app_environment
from engine.errors import AELError
from engine.network import NO_DOWNLOADS
from engine.store.persistence import save_session
from scenarios.news import corpus as news_corpus
from tests.news_corpus import write_corpus
from tests.tui_helpers import frozen_lab, notifications, settle, synthetic  # noqa: F401  (frozen_lab: autouse)

SIZE = (160, 48)


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Sockets to anything but a Unix socket fail, and scikit-learn's fetch is a failure
    of the test: a served lab must never get as far as asking."""
    def refuse(*args, **kwargs):
        raise OSError("network closed in the served-lab tests")

    def no_fetch(*args, **kwargs):
        raise AssertionError("a served lab called fetch_20newsgroups")

    connect = socket.socket.connect

    def local_only(sock, address):
        if sock.family != socket.AF_UNIX:
            refuse()
        return connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", local_only)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr("sklearn.datasets.fetch_20newsgroups", no_fetch)  # imported here, not at collection
    news_corpus.load.cache_clear()
    yield
    news_corpus.load.cache_clear()


@pytest.fixture
def folder(tmp_path) -> Path:
    (tmp_path / "class").mkdir()
    return tmp_path / "class"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> str:
    return str(write_corpus(tmp_path_factory.mktemp("news")).resolve())


def served(folder: Path, session=None, **mode) -> ServedLab:
    return ServedLab(ServedMode(root=str(folder), **mode), session, cursor_blink=False, show_times=False)


# ------------------------------------------------------------------ the news world
async def test_without_the_teachers_copy_the_news_world_is_not_offered(folder):
    app = served(folder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=4)
        assert isinstance(app.screen, StartScreen)
        offered = [value for _label, value in app.screen.query_one("#scenario", Select)._options]
        assert "news" not in offered and "support" in offered
        assert "--news-data" in str(app.screen.query_one("#scenario-note", Static).render())
        app.start_new_session(NewSession("news", 42, "ts+reflection", "auto"))
        await settle(pilot, rounds=4)
        assert app.lab is None and any("news is not served here" in m for m in notifications(app))


async def test_with_the_teachers_copy_a_visitors_news_session_reads_it(folder, corpus, tmp_path):
    app = served(folder, local_copies={"news": corpus})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=4)
        offered = [value for _label, value in app.screen.query_one("#scenario", Select)._options]
        assert "news" in offered
        other = write_corpus(tmp_path / "visitors-own")  # a folder the visitor names is not read
        app.start_new_session(NewSession("news", 42, "fixed:compressed", "auto", options={"data": str(other)}))
        await settle(pilot, rounds=4)
        assert app.lab is None and any("teacher's copy" in m for m in notifications(app))
        app.start_new_session(NewSession("news", 42, "fixed:compressed", "auto"))  # Articles left as offered
        await settle(pilot, rounds=4)
        assert isinstance(app.screen, LabScreen)
        assert app.lab.host.session.config.scenario_options["data"] == corpus


@pytest.mark.parametrize("data", ["sklearn", "elsewhere"])
async def test_a_news_save_reading_other_articles_is_refused_before_anything_is_read(folder, corpus, tmp_path,
                                                                                     monkeypatch, data):
    elsewhere = str(write_corpus(tmp_path / "elsewhere"))
    session = build_session(NewSession("news", 42, "fixed:compressed", "auto", options={"data": elsewhere}))
    session.run(until=3)
    save_session(session, folder / "news.json")
    doc = json.loads((folder / "news.json").read_text())
    doc["session"]["config"]["scenario_options"]["data"] = "sklearn" if data == "sklearn" else elsewhere
    (folder / "news.json").write_text(json.dumps(doc))
    news_corpus.load.cache_clear()
    read = []
    monkeypatch.setattr(news_corpus, "read_folder", lambda *a, **k: read.append(a) or pytest.fail("read"))
    app = served(folder, local_copies={"news": corpus})
    async with app.run_test(size=SIZE) as pilot:
        app.open_saved_session(Path("news.json"))
        await settle(pilot, rounds=4)
        assert app.lab is None and not read
        assert any("reads only the teacher's copy" in m for m in notifications(app)), notifications(app)


def test_a_served_process_never_downloads_the_articles(tmp_path, monkeypatch):
    """Past every check of the served lab (a way around them found), the scenario itself
    asks scikit-learn for what is on disk only."""
    calls = []

    def fetch(**kwargs):
        calls.append(kwargs)
        raise OSError("20Newsgroups dataset not found and download_if_missing is False")

    monkeypatch.setattr("sklearn.datasets.fetch_20newsgroups", fetch)
    monkeypatch.setenv(NO_DOWNLOADS, "1")
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "home"))
    with pytest.raises(AELError, match="may not download it") as err:
        news_corpus.fetch()
    assert calls and all(c["download_if_missing"] is False for c in calls)
    assert "--news-data" in str(err.value) and "\n" not in str(err.value)
    monkeypatch.delenv(NO_DOWNLOADS)
    calls.clear()
    with pytest.raises(AELError):
        news_corpus.fetch()
    assert calls[0]["download_if_missing"] is True  # outside a served lab: as before


def test_a_served_process_never_downloads_market_data(tmp_path, monkeypatch):
    from scenarios.portfolio import yahoo

    monkeypatch.setattr(yahoo, "download_hourly", lambda *a, **k: pytest.fail("downloaded"))
    monkeypatch.setenv(NO_DOWNLOADS, "1")
    with pytest.raises(AELError, match="may not download"):
        yahoo.load_yahoo(["AAPL"], cache_dir=tmp_path / "cache")


def test_news_data_is_checked_when_the_teacher_gives_it(capsys, tmp_path):
    assert main(["serve", "--sessions", str(tmp_path / "c"), "--news-data", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "--news-data" in err and "no such folder" in err and err.count("\n") == 1
    assert main(["serve", "--sessions", str(tmp_path / "c"), "--scenario", "news"]) == 2
    err = capsys.readouterr().err
    assert "news is not served here" in err and err.count("\n") == 1


# ------------------------------------------------------------ the visitor's process
def test_a_visitors_process_keeps_its_home_temporary_files_and_caches_in_the_folder(folder):
    mode = ServedMode(root=str(folder))
    env = app_environment({"PATH": "/usr/bin", "HOME": "/home/teacher", "TMPDIR": "/tmp",
                           "XDG_CACHE_HOME": "/home/teacher/.cache", "AEL_LAB_CACHE_DIR": "/home/teacher/c",
                           "SCIKIT_LEARN_DATA": "/home/teacher/sk"}, mode)
    private = folder.resolve() / PRIVATE
    for name in ("HOME", "TMPDIR", "TMP", "TEMP", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
                 "AEL_LAB_CACHE_DIR", "SCIKIT_LEARN_DATA", "MPLCONFIGDIR"):
        assert Path(env[name]).is_relative_to(private), name
    assert env["PYTHONDONTWRITEBYTECODE"] == "1" and env[NO_DOWNLOADS] == "1"
    mode.prepare()
    assert Path(env["TMPDIR"]).is_dir()  # else Python's tempfile falls back to /tmp


def test_a_visitor_cannot_name_the_labs_own_folder(folder):
    mode = ServedMode(root=str(folder))
    for typed in (f"{PRIVATE}/cache/support/x.npy", f"{PRIVATE}/home/.bashrc", PRIVATE):
        with pytest.raises(AELError, match="lab's own folder"):
            mode.confine(Path(typed), "save")


# ------------------------------------------------------------------ the quota
def test_a_visitors_writes_stop_at_their_quota(folder):
    files = VisitorFiles(ServedMode(root=str(folder), quota_mib=1))
    first = files.confine(Path("a.json"), "save")
    first.write_bytes(b"x" * (MIB + 1))
    with pytest.raises(AELError, match="over the 1 MiB each visitor may write"):
        files.confine(Path("b.json"), "save")
    other = VisitorFiles(ServedMode(root=str(folder), quota_mib=1))  # another visitor: their own share
    other.confine(Path("c.json"), "save")


def test_the_whole_folder_has_a_quota_too(folder):
    (folder / "teachers.bin").write_bytes(b"x" * (2 * MIB))
    files = VisitorFiles(ServedMode(root=str(folder), quota_mib=10, folder_quota_mib=1))
    with pytest.raises(AELError, match="the sessions folder holds 2.0 MiB, over its 1 MiB"):
        files.confine(Path("a.json"), "export")


async def test_a_save_export_and_screenshot_over_the_quota_are_refused_with_a_notification(folder):
    app = served(folder, synthetic(approval="auto"), quota_mib=0.001)  # about 1 KB: one save fills it
    async with app.run_test(size=SIZE) as pilot:
        app.lab.files.write(Path("first.json"))
        await settle(pilot)
        assert (folder / "first.json").stat().st_size > 0.001 * MIB
        app.lab.files.write(Path("second.json"))
        await settle(pilot)
        assert any("each visitor may write" in m for m in notifications(app))
        app.clear_notifications()
        app.lab.files.export_to("history")
        await settle(pilot)
        assert any("each visitor may write" in m for m in notifications(app))
        app.clear_notifications()
        app.action_save_svg()  # refused at once: no prompt for a file that cannot be written
        await settle(pilot, rounds=4)
        assert any("each visitor may write" in m for m in notifications(app))
    assert not (folder / "second.json").exists() and not (folder / "history.csv").exists()
    assert not list(folder.glob("exports/*.svg"))


async def test_a_screenshot_counts_in_the_quota(folder):
    app = served(folder, synthetic(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        app.action_save_svg()
        await settle(pilot)
        await pilot.press("enter")  # the prompt's default path
        await settle(pilot, rounds=4)
        shots = list((folder / "exports").glob("*.svg"))
        assert len(shots) == 1 and app.files.used() == shots[0].stat().st_size


def test_quota_flags_are_checked(capsys, tmp_path):
    for flags, words in ((["--quota-mib", "0"], "--quota-mib: 0 is outside"),
                         (["--folder-quota-mib", "nan"], "--folder-quota-mib: 'nan' is not a finite number"),
                         (["--max-per-address", "0"], "--max-per-address: 0 is too small")):
        assert main(["serve", "--sessions", str(tmp_path / "c"), *flags]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1


# ---------------------------------------------------------- labs per address
def test_one_address_holds_at_most_its_share_of_the_labs():
    cap = SessionCap(40, per_address=4)
    assert all(cap.acquire("10.0.0.7") for _ in range(4))
    assert cap.full_for("10.0.0.7") and not cap.acquire("10.0.0.7") and not cap.full
    assert cap.acquire("10.0.0.8")  # the next student still gets one
    cap.release("10.0.0.7")
    assert cap.acquire("10.0.0.7") and cap.active == 5


def test_the_teachers_copy_may_be_the_archive_itself(tmp_path, capsys):
    """`--news-data 20news-bydate.tar.gz` (or `--data`): read in place, the same articles in the
    same order as the folder it unpacks to, nothing written."""
    import tarfile

    folder = write_corpus(tmp_path / "unpacked")
    archive = tmp_path / "20news-bydate.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for subset in sorted(folder.iterdir()):
            tar.add(subset, arcname=subset.name)
    from_folder, from_archive = news_corpus.read_folder(str(folder)), news_corpus.read_archive(str(archive))
    assert (from_archive.groups, from_archive.subjects, from_archive.texts) == (
        from_folder.groups, from_folder.subjects, from_folder.texts)
    assert news_corpus.load(str(archive)).texts == from_folder.texts
    (tmp_path / "bad.tar.gz").write_bytes(b"not gzip at all")
    assert main(["serve", "--sessions", str(tmp_path / "c"), "--news-data", str(tmp_path / "bad.tar.gz")]) == 2
    err = capsys.readouterr().err
    assert "--news-data" in err and "cannot read it as a 20news-bydate archive" in err and err.count("\n") == 1


async def test_autosaves_count_in_the_quota_and_stop_at_it(folder):
    app = served(folder, synthetic(approval="auto"), quota_mib=0.001)
    app.settings.autosave_every = 1
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        await settle(pilot)
        autosaves = list(folder.glob("autosave-*.json"))
        assert len(autosaves) == 1 and app.files.used() == autosaves[0].stat().st_size
        before = autosaves[0].read_bytes()
        await pilot.press("space")
        await settle(pilot, rounds=4)
        assert any("autosave failed" in m and "each visitor may write" in m for m in notifications(app))
        assert autosaves[0].read_bytes() == before
