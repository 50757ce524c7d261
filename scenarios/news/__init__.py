"""The 20 Newsgroups stream of the paper's appendix (`tab:news_crossdomain`).

Modules: `spec` (what the scenario declares), `corpus` (the articles, from
scikit-learn, a local 20news-bydate folder or its archive, stripped of headers, footers and
quotes), `stream` (the seed's 200 articles and their TF-IDF cosines),
`policies` (the retrieval policies, the regime label, the 5-NN predictor),
`reflector`, `saved_metadata`, `scenario`. Nothing here imports scikit-learn
until a scenario is built.
"""
