"""magnet-exp: experiments with magnet and the analysis of its logs.

The logs are read through `ttpb2ascii -f magnet`, the stable text
interface (docs/binary-format.md may change; the text columns do not).
"""
__all__ = ["textlog", "analyse", "cli"]
