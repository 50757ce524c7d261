"""The stream world on the lab's start screen (issue 33): a file, its columns, a preview
of its first rows and column types; a bad file or column is one notification."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Select, Static

from ael_tui.files.start_screen import StartScreen
from ael_tui.lab.lab_screen import LabScreen
from scenarios.stream.demo import write_demo
from tests.tui_helpers import make_app, notifications, settle

SIZE = (160, 60)


async def choose_stream(app, pilot, path: str, **columns: str) -> None:
    app.screen.query_one("#scenario", Select).value = "stream"
    await settle(pilot)
    app.screen.query_one("#opt-stream-data", Input).value = path
    for name, value in columns.items():
        app.screen.query_one(f"#opt-stream-{name}", Input).value = value
    await settle(pilot, 3)


async def test_the_start_screen_previews_the_file_and_starts_a_stream_session(tmp_path):
    path = str(write_demo(tmp_path / "demo.csv", 1, 120))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        assert app.screen.query_one("#opt-stream-meta", Input).value == ""  # no "[]" for an empty list
        await choose_stream(app, pilot, path, text="text", label="label", meta="source,region", regime="phase")
        shown = str(app.screen.query_one("#data-preview", Static).render())
        assert "120 rows · 8 columns" in shown
        assert "label" in shown and "category" in shown and "6 distinct" in shown and "number" in shown
        await pilot.press("ctrl+n")
        await settle(pilot, 3)
        assert isinstance(app.screen, LabScreen)
        s = app.screen.host.session
        assert s.config.scenario == "stream" and s.n_episodes == 120
        assert s.config.scenario_options["meta"] == ["source", "region"]
        assert len(s.config.scenario_options["data_sha256"]) == 64


async def test_a_bad_file_or_column_is_one_line_and_the_start_screen_stays(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("text,label\ncaf\xe9,a\nth\xe9,b\n".encode("latin-1"))
    good = str(write_demo(tmp_path / "demo.csv", 2, 60))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await choose_stream(app, pilot, str(path), text="text", label="label")
        assert "not UTF-8 text" in str(app.screen.query_one("#data-preview", Static).render())
        await choose_stream(app, pilot, good, text="body", label="label")
        await pilot.press("ctrl+n")
        await settle(pilot, 3)
        assert isinstance(app.screen, StartScreen)
        errors = [n for n in notifications(app) if "--text body: no such column" in n]
        assert len(errors) == 1 and "\n" not in errors[0]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_preview_is_in_view_under_the_data_field_and_the_column_fields_hold_hints(tmp_path, size):
    path = str(write_demo(tmp_path / "demo.csv", 1, 50))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await choose_stream(app, pilot, path)
        preview = app.screen.query_one("#data-preview", Static)
        form = app.screen.query_one("#new-session")
        assert preview.display and "50 rows · 8 columns" in str(preview.render())
        # all of it on screen, inside the form, without scrolling, under the data field it describes
        assert form.scroll_offset.y == 0 and form.content_region.contains_region(preview.region), \
            (preview.region, form.content_region)
        assert preview.region.y > app.screen.query_one("#opt-stream-data", Input).region.y
        for name in ("text", "label", "meta", "regime", "order"):  # hints, not values that look filled in
            field = app.screen.query_one(f"#opt-stream-{name}", Input)
            assert field.value == "" and " " in str(field.placeholder) and "column" in str(field.placeholder)
