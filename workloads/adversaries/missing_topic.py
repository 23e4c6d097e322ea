"""``missing_topic``: K + 1 topics; each step asks for the smallest one the target lacks.

K + 1 topics with orthonormal centres and compact clusters (``preset=compact``).  Each step
asks (weight 1) for the smallest topic of which the target holds no item; K slots cannot
hold K + 1 topics, so there always is one.  That topic's item then arrives, so the target
could react.  The target misses every step, and an always-admit policy pays T(1 + λ).  OPT
may keep the K topics asked for most often and never admit the last one, which is asked at
most T/(K + 1) times.  So OPT ≤ T/(K + 1) + K(1 + λ), and the ratio is at least
(K + 1)(1 + λ)(1 − o(1)) for a target that admits every step, and at least (K + 1)(1 − o(1))
for any target.  FIFO meets it: its sequence is the cycle 0, 1, …, K.  (That is K + 1, not
paging's K, because the model lets OPT skip an admission.)  Recency and frequency policies
do worse: a top-k retrieval refreshes the items it returns, relevant or not, so the
adversary can keep asking for a few topics.
"""

from workloads.adversaries import topic_space as space
from workloads.adversaries.builder import Adversary, Step


def _start(params: dict, rng):
    n_useful = params["capacity"] + 1
    d = space.draws(params, rng, n_useful, junk=False)

    def choose(view):
        topic = space.first_missing(view, n_useful)
        centre = d["useful"][topic]
        return Step(query=space.member(centre, d["query_sigma"], d["noise_q"][view.t]),
                    item=space.member(centre, d["item_sigma"], d["noise_x"][view.t]),
                    query_topic=topic, item_topic=topic)

    return choose, d["meta"]


ADVERSARY = Adversary(name="missing_topic", summary="the smallest topic the target lacks",
                      mode="semantic", start=_start, dim=lambda K: K + 2)
