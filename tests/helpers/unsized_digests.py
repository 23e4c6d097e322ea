"""Digests of every policy's runs on unsized traces, as the code before sizes gave them.

``python tests/helpers/unsized_digests.py`` prints the digests of the code it imports
(``PYTHONPATH=OLD_CHECKOUT`` to pin another version's); ``tests/data/unsized_digests.json``
holds those of the last commit before sizes entered the model (1ff6f3d), and
``tests/test_unsized_results.py`` holds the current code to them.  Only fields that
existed then enter a digest: every per-step array, the counters and the run record's
fields listed in ``RECORD`` (not ``elapsed_s``).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

ARRAYS = ("hit", "loss", "precision", "quality", "admitted", "evicted", "deleted", "size",
          "scored")
# (not "params": the policies' parameters are inputs, and a new one, such as evict_rank,
# adds a key with a default that changes nothing)
RECORD = ("policy", "capacity", "top_k", "switch_cost", "quality", "seed", "engine", "mode",
          "steps", "scored_steps", "hits", "hit_rate", "mean_precision", "mean_quality",
          "miss_cost", "modifications", "admissions", "evictions", "cost")
# semantic runs: three workloads that exercise retrieval, re-arrivals and drift; paging:
# a Zipf request stream (small, so the whole registry runs in seconds)
SEMANTIC = (("clusters", {"steps": 300, "topics": 12}, {"capacity": 8, "top_k": 3}),
            ("working_set", {"steps": 300}, {"capacity": 10, "top_k": 3,
                                             "switch_cost": 0.5}),
            ("drift", {}, {"capacity": 6, "top_k": 2, "quality": "precision"}))
PAGING = (("zipf_paging", {"steps": 3000, "objects": 200}, {"capacity": 20}),)


def digest(result) -> str:
    h = hashlib.sha256()
    for name in ARRAYS:
        a = getattr(result, name, None)
        if a is not None:
            h.update(name.encode())
            h.update(np.ascontiguousarray(a).tobytes())
    record = result.summary()
    h.update(json.dumps({k: record[k] for k in RECORD}, sort_keys=True).encode())
    return h.hexdigest()[:24]


def digests(names=None, engines=("fast",)) -> dict:
    """``{"mode/workload/policy/engine": digest}`` for every registered policy (or
    ``names``) in every mode it has."""
    import workloads
    from simulator import policies
    from simulator.runner import run

    out = {}
    for mode, cases in (("semantic", SEMANTIC), ("paging", PAGING)):
        for wl, params, model in cases:
            trace = workloads.get(wl).generate(params, 1)
            for name in names or sorted(policies.REGISTRY):
                if mode not in policies.REGISTRY[name].modes:
                    continue
                for engine in engines:
                    result = run(trace, name, seed=2, engine=engine, **model)
                    out[f"{mode}/{wl}/{name}/{engine}"] = digest(result)
    return out


if __name__ == "__main__":
    print(json.dumps(digests(engines=("fast", "simpy")), indent=1, sort_keys=True))
