"""Calibrate the token estimate of ``store.insight.targets`` against a real tokenizer.

    uv run --with tokenizers --with quicktok-v1 python -m benchmarks.token_ratios \\
        TOKENIZER FILE_OR_DIR...

``TOKENIZER`` is either a Hugging Face ``tokenizer.json`` (read with ``tokenizers``) or the
name of an encoding ``quicktok`` ships (``o200k_base``, ``cl100k_base``): both packages keep
their vocabulary inside the package, so nothing is fetched at run time, and both are needed
only here, not by hurikaeri (``uv run --with`` keeps them out of the project). The Claude tokenizer
that can be had offline is Anthropic's own ``tokenizer.json`` shipped inside the
``anthropic`` Python SDK up to 0.38 (what its ``count_tokens`` used; ``pip download
anthropic==0.37.1 --no-deps`` and unzip it) — the tokenizer of the Claude 2 models.

Every Markdown file given (directories: their ``*.md``, recursively) is cut into its
paragraphs; each paragraph's characters are counted by class (Hangul, kana, Han, other
non-space characters) and tokenised. A least-squares fit over all paragraphs gives the
tokens one character of each class costs. Then it prints, per file, the real count, the
estimate with the fitted costs and with the costs in use, and their error.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from pathlib import Path

from store.insight.targets import SCRIPT_COSTS, estimate_tokens


def counts(text: str) -> list[int]:
    out = [len(rx.findall(text)) for rx, _ in SCRIPT_COSTS.values()]
    other = len("".join(text.split())) - sum(out)
    return [*out, max(other, 0)]


def files(args: list[str]) -> list[Path]:
    out: list[Path] = []
    for a in args:
        p = Path(a)
        out += sorted(p.rglob("*.md")) if p.is_dir() else [p]
    return out


def _counter(name: str) -> Callable[[str], int]:
    if name.endswith(".json"):
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(name)
        return lambda text: len(tok.encode(text, add_special_tokens=False).ids)
    import quicktok

    enc = quicktok.get_encoding(name)
    return lambda text: len(enc.encode(text))


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tokenizer")
    ap.add_argument("paths", nargs="+")
    ns = ap.parse_args(argv)
    count = _counter(ns.tokenizer)
    rows: list[list[int]] = []
    real: list[int] = []
    per_file: list[tuple[Path, str, int]] = []
    for f in files(ns.paths):
        text = f.read_text("utf-8", "replace")
        n = count(text)
        per_file.append((f, text, n))
        for para in re.split(r"\n\s*\n", text):
            if para.strip():
                rows.append(counts(para))
                real.append(count(para))
    coef, *_ = np.linalg.lstsq(np.array(rows, float), np.array(real, float), rcond=None)
    names = [*SCRIPT_COSTS, "other"]
    print(
        "tokens per character:", ", ".join(f"{k} {c:.3f}" for k, c in zip(names, coef, strict=True))
    )
    worst = 0.0
    for f, text, n in per_file:
        fit = float(np.dot(counts(text), coef))
        used = estimate_tokens(text)
        err = (used - n) / n if n else 0.0
        worst = max(worst, abs(err))
        print(f"{n:>7} real  {fit:>9.0f} fitted  {used:>7} in use ({err:+.0%})  {f}")
    print(f"largest error of the estimate in use: {worst:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
