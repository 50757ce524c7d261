"""The `stream` world: AEL on any labelled table a researcher brings.

`ael-lab run stream --data FILE --text COLUMN --label COLUMN [--meta A,B] [--regime COLUMN]
[--order COLUMN]`: each row of a CSV, JSONL or Parquet file is one episode; the agent
predicts its label by a vote over TF-IDF cosine of the text (as the news world) among the
rows and label prototypes its memory-retrieval policy retrieves; the eight policies are the
arms, and every `--meta` column rides along in the memory entries so the reflector
(`reflector`) can look for the field that tells the label.

Modules: `spec` (what the world declares; light), `table` (reading and validating the
file, its content hash, TF-IDF), `policies` (the eight arms, one candidate per --meta
column, the vote), `index` (the row index: every stored row at a flat cost), `prototypes`
(the semantic tier: one TF-IDF prototype per label), `reflector`, `demo` (a generated
stream whose last regime only one metadata column can solve), `llm_agent` (a model as the
agent: `--agent PROVIDER`, the labels seen so far as its answer's enum), `scenario`. Nothing
here imports pandas or scikit-learn until a scenario is built.
"""
