"""What the 20 Newsgroups stream declares (read without building it: no scikit-learn here)."""

from __future__ import annotations

from engine.options import Choice, OptionSpec
from engine.scenario_spec import LocalCopy, ScenarioSpec, reflection_options

from .fallbacks import FALLBACKS, LABEL_CLUSTER, LAST5, MOST_SEEN, REGIME_CLUSTER
from .policies import INITIAL_POOL

SPEC = ScenarioSpec(
    name="news",
    summary="classify 200 20 Newsgroups articles by k-NN over retrieved past articles; four topic regimes",
    task_brief=("Predict the newsgroup of each of 200 articles with a 5-NN vote over TF-IDF cosine; the bandit "
                "picks which past articles (each stored with its true group) the vote sees. Each quarter of the "
                "stream over-samples one topic cluster (comp, rec, sci, talk) at 80%."),
    factory="scenarios.news.scenario:NewsScenario",
    selectors=(*(f"fixed:{p.name}" for p in INITIAL_POOL), "rr", "egreedy", "ucb1", "ts", "ts+reflection",
               "oracle"),
    options=(
        OptionSpec("data", str, "sklearn", "20 Newsgroups: sklearn (scikit-learn's data home, downloaded once), "
                   "a folder holding 20news-bydate-train/<group>/<files>, or the 20news-bydate.tar.gz archive "
                   "itself (read in memory)",
                   choices=(Choice("sklearn", "scikit-learn's data home (downloads once)"),),
                   other="a folder in the 20news-bydate layout or its .tar.gz archive", expose=True,
                   label="Articles", other_label="20news-bydate folder or archive",
                   example="path/to/20news-bydate.tar.gz"),
        OptionSpec("none_fallback", str, MOST_SEEN, "what the agent answers without a similar article (always "
                   f"under `none`): {MOST_SEEN} (the group seen most often so far), {LAST5} (the commonest of the "
                   f"last 5 revealed), {LABEL_CLUSTER} (a guess within the reflector's regime label's topic cluster) "
                   f"or {REGIME_CLUSTER} (a guess within the true regime's cluster: the paper's most likely "
                   "reading of its `none` row)",
                   choices=tuple(Choice(name, text) for name, text in FALLBACKS.items()), expose=True,
                   label="Answer without evidence"),
    ),
    # The paper does not give its 20NG gate; ours: every 25 articles, over the trailing 50,
    # the paper's gate alone (accuracy below 0.5) proposes regime_filtered once.
    reflector=reflection_options(trigger="paper", triggers=("paper", "diagnose"), cadence=25, window=50,
                                 threshold=0.5, threshold_help="reflect when the trailing accuracy is below this"),
    session={"warmup": 0, "slow_window": 25},
    # The paper's `tab:news_crossdomain` (5 seeds, 200 episodes), by selector; p: Welch's t-test vs AEL.
    paper_table={
        "fixed:none": {"R0": .176, "R1": .228, "R2": .208, "R3": .096, "overall": .177, "overall_sd": .035,
                       "p": .031},
        "fixed:class_balanced": {"R0": .308, "R1": .212, "R2": .100, "R3": .124, "overall": .186,
                                 "overall_sd": .007, "p": .041},
        "fixed:compressed": {"R0": .288, "R1": .308, "R2": .228, "R3": .244, "overall": .267, "overall_sd": .034,
                             "p": .64},
        "fixed:full_detailed": {"R0": .308, "R1": .308, "R2": .240, "R3": .228, "overall": .271,
                                "overall_sd": .022, "p": .50},
        "rr": {"R0": .252, "R1": .304, "R2": .192, "R3": .156, "overall": .226, "overall_sd": .022, "p": .33},
        "egreedy": {"R0": .260, "R1": .252, "R2": .216, "R3": .144, "overall": .218, "overall_sd": .061, "p": .38},
        "ucb1": {"R0": .276, "R1": .264, "R2": .184, "R3": .176, "overall": .225, "overall_sd": .026, "p": .32},
        "ts": {"R0": .292, "R1": .296, "R2": .224, "R3": .204, "overall": .254, "overall_sd": .021, "p": .97},
        "ts+reflection": {"R0": .280, "R1": .280, "R2": .232, "R3": .220, "overall": .253, "overall_sd": .045},
        "oracle": {"R0": .416, "R1": .568, "R2": .572, "R3": .484, "overall": .510, "overall_sd": .033},
    },
    score_name="accuracy",  # the reward is 1 exactly when the group is right
    # beside a session in the lab's results view: the best fixed style, TS without reflection, hindsight
    compare_with=("fixed:compressed", "ts", "oracle"),
    columns=("p",),
    lesson=("Reflection helps only where the best memory style changes with the regime. Here the topic mix "
            "drifts but the most similar articles (compressed) win in every regime, so the paper finds AEL "
            "equal to Thompson sampling without reflection (0.253 vs 0.254): no harm, no good. Compare with "
            "support, where the last regime needs a new policy."),
    shareable=True,  # no run state: sessions on one seed share the stream and its similarities
    counterfactual=True,
    # a served lab downloads nothing: it offers news only from the teacher's copy (`ael-lab serve --news-data`)
    served_data="local",
    local_copy=LocalCopy("scenarios.news.corpus:read_local", "a local copy of the 20 Newsgroups articles: "
                         "20news-bydate.tar.gz or the folder it unpacks to"),
)
