"""The support-ticket routing stream (`../shared/specs/support-stream.md`).

Modules: `bank` (the template bank, Appendix A), `stream` (the generator, §4),
`text` (tokens and Jaccard, §5), `predictor` (the 5-NN router, §5), `policies`
(the six retrieval policies as PolicySpecs), `table` (the per-seed prediction
table), `patterns` (distillation and rules), `reflector` (§6), `scenario`.
"""

from .scenario import SupportScenario
from .stream import export_jsonl, generate

__all__ = ["SupportScenario", "export_jsonl", "generate"]
