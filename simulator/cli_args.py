"""Command-line options shared by several ``semcache`` subcommands (SPEC §7)."""

from simulator.kernels import QUALITY_CODES


def add_source(p) -> None:
    """``--workload NAME`` or ``--trace FILE`` (exactly one), and repeatable ``--param``."""
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--workload", metavar="NAME", help="a registered workload")
    src.add_argument("--trace", metavar="FILE", help="a trace .npz file (SPEC §6)")
    p.add_argument("--param", metavar="KEY=VALUE", action="append", default=[],
                   help="workload parameter (repeatable)")


def add_model(p, capacity: int = 10) -> None:
    """The model options of SPEC §1: ``--capacity``, ``--top-k``, ``--switch-cost``, ``--quality``."""
    p.add_argument("--capacity", metavar="K", type=int, default=capacity,
                   help="cache size K >= 1")
    p.add_argument("--top-k", metavar="k", type=int, default=3, help="retrieval depth k >= 1")
    p.add_argument("--switch-cost", metavar="λ", type=float, default=0.0,
                   help="cost λ >= 0 of one cache modification")
    p.add_argument("--quality", default="hit", metavar="|".join(QUALITY_CODES),
                   help="per-step quality measure (default: hit)")
