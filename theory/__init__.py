"""Offline optimum, competitive ratios, regret and claim checks (docs/model.md §4).

So far: the exact offline optimum (:func:`theory.opt.opt`) by three dynamic programs —
over item subsets (:mod:`theory.opt_dp`), topic sets (:mod:`theory.opt_topics`) and
count vectors of interchangeable items (:mod:`theory.opt_counts`) — with the miss function
of the engine (:mod:`theory.opt_model`).  Nothing here is imported by the simulator.
"""
