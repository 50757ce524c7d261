"""`--variant NAME[,NAME...]` on `ael-lab run` and `ael-lab lab`, built from the variant registry.

The flag's help lists every registered variant (engine/variants/__init__.py) with its
options and where it applies; the text is parsed and checked against the
scenario actually run, so an unknown variant, one given twice, or one that has
no meaning for the scenario is one line (exit code 2) before anything runs.
"""

from __future__ import annotations

import argparse

from ael_lab import AELError
from ael_lab.selectors import VARIANTS, check_variants, split_variants, variant_help


def variants_help() -> str:
    """Every variant in one paragraph: NAME (where) summary; its options."""
    variant_help()  # registers the built-in variants
    parts = []
    for name, cls in VARIANTS.items():
        where = f" [{', '.join(cls.scenarios)}]" if cls.scenarios else ""
        opts = ", ".join(f"{o.name}={'|'.join(o.values) if o.choices else o.default}" for o in cls.options)
        parts.append(f"{name}{where}: {cls.summary}" + (f" (options: {opts})" if opts else ""))
    return "; ".join(parts)


def add_variant_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", dest="variant", metavar="NAME[,NAME...]",
                        help=f"extensions and ablations, composable with any selector: {variants_help()}")


def variants_of(args: argparse.Namespace, scenario: str) -> list[str]:
    """The variants given, as stored in a session config (each as typed, normalised);
    AELError (one line) for one that is unknown, repeated or meaningless for `scenario`."""
    text = getattr(args, "variant", None)
    if text is None:
        return []
    texts = split_variants(text)
    if not texts:
        raise AELError("--variant: give at least one variant")
    return [v.text for v in check_variants(texts, scenario)]
