"""The lab's shared floor: widgets and helpers that more than one feature folder uses
(the row list, the one braille line chart and the pictures in `charts/`, the steady
footer and scrollbar, dialogs, button rows, tick lists, the redraw throttle, the
status bars, the run loop and its keys, what the panels read of a session, exports).

Feature folders (lab, compare, decisions, memory, files, tour, serve) import this
package, `engine` and the app's floor (`ael_tui.actions`, `ael_tui.config`,
`ael_tui.clock`), never each other (tests/test_import_cycles.py); nothing here
imports a feature folder. A widget only one feature uses stays in that feature's
folder until a second one needs it."""
