"""What the `stream` world declares (read without building it: no pandas, no scikit-learn)."""

from __future__ import annotations

from engine.options import OptionSpec
from engine.scenario_spec import ScenarioSpec, reflection_options

from .policies import INITIAL_POOL

MEMORY_CAP = 500_000  # entries kept per tier: every row of the longest stream a file may hold (table.MAX_ROWS)
REPLAY_ROWS = 1_000  # rows before an episode that the reflector's replay holds: every bounded window (all_history
                     # and prototypes_knn read them all there, through no index: the replay's rows are few)

SPEC = ScenarioSpec(
    name="stream",
    summary="your own labelled table (CSV, JSONL, Parquet): one row per episode, k-NN and label prototypes "
            "over TF-IDF of a text column; --meta columns ride in memory for reflection",
    task_brief=("Predict the label of each row of a labelled stream with a vote over TF-IDF cosine of its "
                "text; the bandit picks what the vote sees: past rows (each stored with its label and its "
                "metadata columns; a recent window or every row) and label prototypes distilled from them. "
                "The rows come in file order; the stream may drift."),
    factory="scenarios.stream.scenario:StreamScenario",
    selectors=(*(f"fixed:{p.name}" for p in INITIAL_POOL), "ucb1", "ts", "ts+reflection", "oracle"),
    options=(
        OptionSpec("data", str, "", "stream: a labelled CSV, JSONL or Parquet file, one row per episode",
                   expose=True, other="a file", label="Data file", other_label="CSV, JSONL or Parquet file",
                   example="path/to/tickets.csv"),
        OptionSpec("text", str, "", "stream: the column holding each row's text", expose=True,
                   other="a column", label="Text column", example="name of the text column"),
        OptionSpec("label", str, "", "stream: the column holding each row's label", expose=True,
                   other="a column", label="Label column", example="name of the label column"),
        OptionSpec("meta", list, [], "stream: metadata columns stored with each memory entry (A,B,...); "
                   "the reflector may propose retrieving by one of them", expose=True, other="columns",
                   label="Metadata columns", example="optional: columns A,B"),
        OptionSpec("regime", str, "", "stream: a column naming each row's regime, for the report's per-regime "
                   "columns only (the agent never sees it)", expose=True, other="a column",
                   label="Regime", example="optional: a column"),
        OptionSpec("order", str, "", "stream: a column to sort the rows by (stable); default file order",
                   expose=True, other="a column", label="Order column", example="optional: a column to sort by"),
        # not a flag: the file's SHA-256, pinned into the session's options when it is built,
        # so a save names its file's content and a resume refuses a changed file
        OptionSpec("data_sha256", str, "", "the data file's SHA-256 (set by the world itself)"),
    ),
    # every 25 rows, over the trailing 50, below half right: replay one candidate per --meta column and
    # those the stream's triggers ask for (signals.py)
    reflector=reflection_options(trigger="diagnose", triggers=("diagnose",), cadence=25, window=50,
                                 threshold=0.5, threshold_help="reflect when the trailing accuracy is below this"),
    agents=("offline", "llm"),  # a model may label the rows (llm_agent.py)
    session={"warmup": 0, "slow_window": 25},  # memory_cap: the stream's rows, up to MEMORY_CAP (scenario.py)
    shareable=True,  # no run state: sessions on one seed share the table and its TF-IDF
    counterfactual=True,
    exports_stream=True,  # `ael-lab export-stream stream --seed N`: the demo stream (demo.py)
    score_name="accuracy",  # the reward is 1 exactly when the label is right
    compare_with=("fixed:compressed", "ts", "oracle"),
    columns=(),
    lesson=("When the text stops telling the label, the reflector replays one retrieval-by-field policy per "
            "metadata column on the recent failures and proposes the one that fixes the most of them that no "
            "current arm fixes, if the evidence clears the bar (at least 5, and a quarter, of the failures). "
            "It knows no column in advance: leave the telling column out of --meta and no column is proposed. "
            "Labels new to memory, shifting label shares, disagreeing neighbours or a starved label make it "
            "replay a recency window, prototypes or class balance under the same bar; when nothing clears it, "
            "the reflection says what it tried, once."),
    sample_data="scenarios.stream.demo:sample_options",
    served_data="file",  # a served lab reads its table only from the sessions folder (ael_tui/serve/mode.py)
)


def preview(path: str) -> str:
    """The start screen's preview of a data file: rows, columns and their types (reads the file)."""
    from .table import preview as read_preview

    return read_preview(path)
