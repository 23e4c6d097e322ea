"""``semcache reproduce``: the SOLAR paper's synthetic experiments, one module each.

Figures are the tables' data as plots: ``fig3`` is Table 8, ``fig4`` Table 9, ``fig5``
Table 10 (the same run writes both the table and the PNG).  ``all`` runs every table
that can run here (``locomo`` needs the LoCoMo data and the text extra; ``all`` skips it
otherwise and says so).

>>> get("fig4").name
'table9'
"""

from simulator.errors import InputError
from simulator.experiments.reproduce import (ablation, agent_memories, drift_table, locomo,
                                             memory_study, table8, table9, table10, table11)

REGISTRY = {m.EXPERIMENT.name: m.EXPERIMENT for m in (
    table8, table9, table10, table11, drift_table, ablation,  # the SOLAR paper's synthetic tables
    memory_study,  # the memory-management study (Xiong et al.)
    locomo,  # real conversations: the SOLAR paper's Table 4 layout
    agent_memories)}  # real conversations: agent frameworks' memory rules beside OPT
FIGURES = {"fig3": "table8", "fig4": "table9", "fig5": "table10"}
NAMES = tuple(REGISTRY) + tuple(FIGURES) + ("all",)


def get(name: str):
    """The experiment called ``name`` (a table or a figure alias)."""
    name = FIGURES.get(name, name)
    if name not in REGISTRY:
        raise InputError(f"unknown reproduction '{name}'; valid names: " + ", ".join(NAMES))
    return REGISTRY[name]


def reproduce(name: str, quick: bool = False, seeds=(0, 1, 2), out_dir: str = "reproduce-out"):
    """Run one experiment; returns (table document, written paths)."""
    from simulator.experiments.reproduce.base import outputs, table

    exp = get(name)
    seeds = [int(s) for s in seeds]
    if len(seeds) < 1:
        raise InputError("seeds must name at least one seed", "seeds")
    # measure returns (cells, notes) or (cells, notes, sections): more top-level keys of
    # the document (locomo's "temporal")
    cells, notes, *sections = exp.measure(quick, seeds)
    doc = table(exp, cells, notes)
    doc.update(*sections)
    doc["quick"] = quick
    doc["seeds"] = seeds
    return doc, outputs(exp, cells, doc, out_dir)
