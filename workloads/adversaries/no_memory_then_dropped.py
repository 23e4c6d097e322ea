"""``no_memory_then_dropped``: weight-0 junk while the target holds every useful topic.

K useful topics, and a fresh *junk* topic for each weight-0 step.  While the target holds
every useful topic, the steps have weight 0 (w_t = 0: queries that need no memory,
docs/model.md §1), and each brings a query and an item of a new junk topic.  After
``phase`` such steps in a row, one weight-1 query asks for useful topic 0.  As soon as a
useful topic is missing, a weight-1 query asks for the smallest missing one, and its item
arrives.  An always-admit policy admits junk and so drops a useful topic after one weight-0
step, and often more while it re-admits the useful ones: FIFO misses K of every K + 1 steps
and pays about T(K + λ(K + 1))/(K + 1).  OPT keeps the K useful topics and pays at most
K(1 + λ) in all, so the ratio grows linearly in T.  Regret-gated admission (``solar_a``,
``solar``) adds ℓ_t = 0 on weight-0 steps, never admits junk, and stops missing once it
holds the useful topics.

Junk centres share one direction (centre cosine 0.5) and are orthogonal to the useful
ones, so a weight-0 query retrieves junk first: retrieval-driven bookkeeping (LRU's
recency, LFU's counts) is refreshed on junk, not on useful items.
"""

from workloads.adversaries import topic_space as space
from workloads.adversaries.builder import Adversary, Step


def _start(params: dict, rng):
    n_useful = params["capacity"]
    d = space.draws(params, rng, n_useful, junk=True)
    run = {"junk": 0, "made": 0}  # weight-0 steps in a row; junk topics made so far

    def choose(view):
        topic = space.first_missing(view, n_useful)
        weight, aimed = 1.0, False
        if topic is not None:
            centre, run["junk"], aimed = d["useful"][topic], 0, True
        elif run["junk"] < params["phase"]:  # a query that needs no memory; junk arrives
            topic, centre, weight = n_useful + run["made"], d["junk"][view.t], 0.0
            run["junk"], run["made"] = run["junk"] + 1, run["made"] + 1
        else:  # the target kept every useful topic through a whole phase: ask anyway
            topic, centre, run["junk"] = 0, d["useful"][0], 0
        return Step(query=space.member(centre, d["query_sigma"], d["noise_q"][view.t]),
                    item=space.member(centre, d["item_sigma"], d["noise_x"][view.t]),
                    query_topic=topic, item_topic=topic, weight=weight, aimed=aimed)

    return choose, d["meta"]


ADVERSARY = Adversary(name="no_memory_then_dropped",
                      summary="junk of weight 0 until the target drops a useful topic",
                      mode="semantic", start=_start, dim=lambda K: K + 2)
