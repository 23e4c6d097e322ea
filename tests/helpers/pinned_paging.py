"""Paging request sequences pinned for the corner cases of ARC, arc_ref and tinylfu.

``PINNED_PAGING`` lists ``(policy, requests, capacity, params)``: ARC's B2 ghost hits and
the moves of its target ``p``, ``arc_ref``'s integer ``p``, and a ``tinylfu`` hit that
overfills probation.  Used by ``test_engine_vs_naive`` (fast engine against the naive
twin) and ``test_arc_paging`` (ARC's own loop against its hook loop).
"""

PINNED_PAGING = [  # ARC: |T1| = p on a B2 ghost hit; p moves by the ghost-size ratio
    ("arc", [4, 2, 0, 4, 1, 1, 3, 0, 2, 1, 5, 5, 3], 3, {}),
    ("arc", [5, 1, 5, 3, 1, 2, 0, 2, 3, 1, 4, 0, 5, 4, 5], 3, {}),
    ("arc", [7, 11, 1, 12, 12, 0, 11, 8, 11, 11, 0, 11, 8, 5, 2, 6, 9, 10, 3, 8, 1, 5, 12, 4,
             10, 3, 7], 7, {}),
    # arc_ref: a B2 ghost hit with |T1| = ⌊p⌋ < p evicts from T1 (the runner's int(p))
    ("arc_ref", [6, 7, 7, 6, 6, 3, 4, 7, 5, 5, 2, 5, 3, 0, 1, 0, 5, 2, 5, 4, 6, 7, 7, 7, 0, 1, 6,
                 0, 5, 4, 5, 6, 0, 0, 4, 2, 4, 7, 5, 3], 3, {}),
    # tinylfu, K = 7: probation (1) and protected (4) leave a slot of main to neither; the
    # hit on 0 overfills probation, which drops 9 during the hit, so the last request misses
    ("tinylfu", [0, 7, 3, 9, 1, 8, 3, 9, 2, 6, 0, 9], 7, {}),
]
