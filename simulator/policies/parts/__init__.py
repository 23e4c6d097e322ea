"""Building blocks that several policies share; none of them is a policy by itself.

``linked_rows`` (queues threaded through table rows: ARC, 2Q, S3-FIFO, W-TinyLFU),
``regret_gate`` (the SOLAR paper's Alg. 1), ``thompson`` (its Alg. 2), ``memory_rules``
(the memory-management study's addition and deletion rules), ``authors_gate``,
``authors_thompson`` and ``authors_views`` (the SOLAR authors' runner, for the ``*_ref``
policies) and ``arc_paging_loop`` (ARC's own whole-trace paging loop).
"""
