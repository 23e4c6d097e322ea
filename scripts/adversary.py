"""Measured competitive ratio of an adaptive adversary against one policy, over horizons.

    .venv/bin/python scripts/adversary.py --adversary missing_topic --policy lru --capacity 8 \
        [--switch-cost 0.5] [--top-k 3] [--horizons 50,100,200,400] [--seed 0] \
        [--param phase=4] [--out trace.npz] [--json]

For each horizon T: build the adversary's trace against the policy (run with ``--seed``),
run the policy on it, compute OPT (exact, or bounds; Belady in paging mode) and print
T, the policy's cost, OPT, the ratio and the theory's value.  ``=`` marks an exact value,
``≥``/``≤`` a bound, ``→`` a limit.  ``--out`` saves the longest horizon's trace (atomic
write), which ``semcache run --trace`` replays.  The logic is in
:mod:`theory.adversary_ratio` and :mod:`workloads.adversaries.workload`; this file only prints.
"""

from __future__ import annotations

import argparse
import json
import sys

from simulator.errors import InputError
from simulator.trace_formats import save
from theory.adversary_ratio import measure
from workloads.adversaries import REGISTRY as ADVERSARIES

NAMED = ("adversary", "target", "capacity", "steps", "switch_cost", "top_k")


def _horizons(text: str) -> list:
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise InputError(f"--horizons expects integers like 50,100,200, got {text!r}") from None
    if not values or min(values) < 1:
        raise InputError(f"--horizons must be integers >= 1, got {text!r}")
    return values


def _params(items: list) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--param expects KEY=VALUE, got {item!r}")
        if key.strip() in NAMED:
            raise InputError(f"--param {key.strip()}: set it with its own option")
        out[key.strip()] = value.strip()
    return out


def _cell(value, mark: str, digits: int = 4) -> str:
    return "—" if value is None else f"{mark} {value:.{digits}g}"


def _print_table(rows: list) -> None:
    first = rows[0]
    print(f"adversary {first['adversary']} vs {first['policy']}: K = {first['capacity']}, "
          f"k = {first['top_k']}, λ = {first['switch_cost']:g}, seed {first['seed']}")
    print(f"{'T':>7}  {'policy cost':>11}  {'OPT':>11}  {'ratio':>11}  {'theory':>9}")
    theory = {"limit": "→", "at least": "≥"}
    for r in rows:
        opt = _cell(r["opt_lower"], "=" if r["opt_exact"] else "≥", 8)
        ratio = _cell(r["ratio"], "=" if r["ratio_exact"] else "≤")
        ref = ("→ ∞" if r["reference_kind"] == "unbounded"
               else _cell(r["reference"], theory.get(r["reference_kind"], "")))
        print(f"{r['steps']:>7}  {r['policy_cost']:>11.8g}  {opt:>11}  {ratio:>11}  {ref:>9}")
        if r.get("opt_error"):
            print(f"         OPT: {r['opt_error']}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="adversary", description=__doc__.split("\n\n")[0])
    p.add_argument("--adversary", default="missing_topic", choices=ADVERSARIES)
    p.add_argument("--policy", default="lru", help="the target policy")
    p.add_argument("--capacity", type=int, default=8, help="K")
    p.add_argument("--top-k", type=int, default=3, help="k")
    p.add_argument("--switch-cost", type=float, default=0.0, help="λ")
    p.add_argument("--horizons", default="50,100,200,400", help="comma-separated T values")
    p.add_argument("--seed", type=int, default=0, help="seed of the vectors and the policy")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="another workload parameter (phase, dim, target_params, ...)")
    p.add_argument("--out", metavar="FILE", help="save the longest horizon's trace (.npz)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    try:
        horizons, params = _horizons(args.horizons), _params(args.param)
        rows, longest = [], None
        for steps in horizons:
            row, trace = measure(args.adversary, args.policy, args.capacity, steps,
                                 args.switch_cost, args.top_k, args.seed, params)
            rows.append(row)
            if longest is None or steps > longest.steps:
                longest = trace
        if args.out:
            try:
                save(longest, args.out)
            except OSError as exc:
                raise InputError(f"cannot write --out '{args.out}': {exc.strerror}") from None
    except InputError as exc:
        sys.stderr.write(f"adversary: error: {exc}\n")
        return 2
    if args.json:
        print(json.dumps({"rows": rows, "written": args.out}))
    else:
        _print_table(rows)
        if args.out:
            print(f"wrote {args.out} ({longest.steps} steps)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
