"""The worst-case search (docs/search.md): the instance on which a policy does worst
against the exact optimum, found by optimisation, then shrunk and grown into a family.

- :func:`worst_case`, the entry point, and its :class:`SearchResult`
  (:mod:`theory.search.worst_case`, :mod:`theory.search.result`);
- the space of tiny instances and its mutations (:mod:`theory.search.space`);
- certified scores against Belady or the model's exact OPT (:mod:`theory.search.scores`);
- the engines: annealing, ``hypothesis.target``, random, and the exhaustive pass
  (:mod:`theory.search.engines`);
- growing the worst case by block repetition, and the growth verdict
  (:mod:`theory.search.grow`); scaling K, one search per capacity and the limit's fit on
  K (:mod:`theory.search.capacity`);
- :class:`Budget`, what a claim's search may spend (``theory.Claim(search=...)``,
  :mod:`theory.search.budget`).
"""

from theory.search.budget import Budget
from theory.search.capacity import across_capacity
from theory.search.result import SearchResult
from theory.search.space import Space
from theory.search.worst_case import worst_case

__all__ = ["Budget", "SearchResult", "Space", "across_capacity", "worst_case"]
