# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # AEL Lab from a notebook
#
# The support world (1,200 API support tickets routed to 8 teams) played from code with `ael_lab`,
# the library face of the lab (docs/api.md names everything used here). In manual approval the run
# stops where the slow reflection proposes something; we read its evidence as DataFrames, reject
# the arm it proposes, compare the run with the branch where it was approved, draw the charts, and
# read a small sweep into pandas.
#
# This file is the Jupytext percent form of `examples/notebook.ipynb`; the suite executes the
# notebook (`tests/process/test_notebook.py`).

# %%
import subprocess
import sys
import tempfile

import pandas as pd

import ael_lab

s = ael_lab.new("support", seed=42, approval="manual")
s.run()  # stops where a proposal waits for a decision
s

# %% [markdown]
# ## The proposals at episode 920, and their evidence

# %%
pending = s.pending()
pending[["id", "kind", "episode", "summary"]]

# %%
evidence = pd.Series(pending.set_index("id").loc[2, "evidence"])
evidence

# %% [markdown]
# The reflection read the trailing accuracy and the failures of the last slow window. The same
# numbers, from the run's history:

# %%
h = s.history()
lo, hi = evidence["trailing_window"]
trailing = h[h.episode.between(lo, hi)]
print(f"accuracy over episodes {lo}-{hi}: {trailing.correct.mean():.4f} (the reflection read "
      f"{evidence['trailing_accuracy']})")
trailing.groupby(["regime_name", "policy"]).correct.agg(["mean", "count"])

# %%
# the failures route_aware would have fixed: what was played and answered there
h.loc[evidence["fixed_episodes"], ["episode", "regime_name", "policy", "action", "result", "hits"]]

# %%
s.posteriors()[["arm", "alpha", "beta", "mean", "pulls"]]

# %%
memory = s.memory()
memory.groupby("tier").size()

# %%
# why the last episode of the window went as it did (the episode replayed with instruments on)
print(s.explain(919).text()[:1500])

# %% [markdown]
# ## Decide from code: approve the insight, reject the arm

# %%
s.approve(1, reason="routing by the endpoint matches the misses")
s.reject(2, reason="the insight first; no new arm yet")
s.audit()[["seq", "episode", "proposal", "kind", "decision", "who", "reason"]]

# %% [markdown]
# ## The run against its branch
#
# `branch` takes the run back to the start of episode 920 with proposal #2 decided the other way
# (approved) and returns a new session; `s` is left as it was. Both then play to the end, with
# whatever else is proposed approved as it comes.

# %%
b = s.branch(920, decide={2: "approve"})
for run in (s, b):
    run.approval = "auto"
    run.run()
pd.DataFrame({"arm rejected": s.results(), "arm approved": b.results()}).loc[
    ["overall", "regimes", "injections", "reflections"]]

# %%
compare = pd.DataFrame({"arm rejected": s.history().correct, "arm approved": b.history().correct})
compare.groupby(s.history().regime_name).mean()

# %% [markdown]
# ## The charts

# %%
s.chart("arms")

# %%
b.chart("arms")

# %%
s.chart("reward")

# %%
s.chart("regret")  # against an oracle run on the same world and seed

# %%
s.chart("regimes")

# %% [markdown]
# ## A sweep read into pandas
#
# A tiny sweep (two methods, two seeds, 60 episodes of the synthetic world) written by
# `ael-lab sweep` to a temporary folder, then read back as its store's tables.

# %%
folder = tempfile.mkdtemp(prefix="ael-sweep-")
subprocess.run([sys.executable, "-m", "ael_cli.main", "sweep", "synthetic", "--seeds", "1,2",
                "--selector", "ts,ucb1", "--episodes", "60", "--workers", "1", "--quiet", "--out", folder],
               check=True)
tables = ael_lab.sweep.read(folder)
tables

# %%
tables.runs.pivot(index="seed", columns="selector", values="overall")

# %%
tables.rewards.merge(tables.runs[["id", "selector"]], left_on="run", right_on="id").groupby(
    ["selector", "phase"]).reward.mean()

# %%
import shutil

shutil.rmtree(folder)  # the sweep's temporary folder
