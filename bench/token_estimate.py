"""How far nehanda's token estimate is from a real tokenizer, on code and on prose.

Run by hand: ``pip install -e '.[bench]'`` (bpe-openai ships cl100k_base and o200k_base,
no download), then ``python bench/token_estimate.py``. The estimate is the one the engine
uses (``engine.context.TokenCounter``: characters over the family's characters per token,
plus a small overhead per message part); each sample is one message. A ratio above 1
means the estimate is larger than the tokenizer's count, the safe side: compaction
starts a little early, never late.
"""

from __future__ import annotations

import time
from pathlib import Path

from bpe_openai import get_encoding

from nehanda.config.profiles import chars_per_token
from nehanda.engine.context import TokenCounter
from nehanda.types import Message

ROOT = Path(__file__).parent.parent
SAMPLES = {
    "code (src/**/*.py)": sorted((ROOT / "src").rglob("*.py")),
    "prose (*.md)": sorted(ROOT.glob("*.md")) + sorted((ROOT / "docs").rglob("*.md")),
}
MODELS = ("qwen3-8b", "gpt-4o", "claude-sonnet-4-5")


def main() -> None:
    encodings = {name: get_encoding(name) for name in ("cl100k_base", "o200k_base")}
    print(
        f"{'sample':22} {'model family':18} {'tokenizer':12} {'est/real':>8} {'min':>6} {'max':>6}"
    )
    for sample, paths in SAMPLES.items():
        texts = [p.read_text(encoding="utf-8") for p in paths if p.stat().st_size > 200]
        for model in MODELS:
            counter = TokenCounter(chars_per_token(model))
            estimates = [counter.messages([Message.text_message("user", t)]) for t in texts]
            for name, encoding in encodings.items():
                real = [len(encoding.encode(t, disallowed_special=())) for t in texts]
                ratios = [e / r for e, r in zip(estimates, real, strict=True)]
                total = sum(estimates) / sum(real)
                print(
                    f"{sample:22} {model:18} {name:12} {total:8.2f} "
                    f"{min(ratios):6.2f} {max(ratios):6.2f}"
                )
    text = "".join(p.read_text(encoding="utf-8") for p in SAMPLES["code (src/**/*.py)"])
    counter = TokenCounter(3.2)
    started = time.perf_counter()
    counter.messages([Message.text_message("user", text)])
    estimate_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    encodings["o200k_base"].encode(text, disallowed_special=())
    real_ms = (time.perf_counter() - started) * 1000
    print(
        f"\n{len(text) / 1e6:.2f} MB of code: estimate {estimate_ms:.3f} ms, "
        f"o200k_base {real_ms:.0f} ms"
    )


if __name__ == "__main__":
    main()
