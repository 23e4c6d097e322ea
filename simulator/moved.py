"""Old module paths that keep importing: each old dotted name is the module at its new path.

The tree was reorganised into folders that show its floors (docs/development.md, "The
tree").  Code written against an old path, ``simulator.engine_fast`` say, goes on working:
importing it gives the very module now at ``simulator.engine.fast``, with a
DeprecationWarning naming the new path.  :func:`install` puts the finder on
``sys.meta_path``; ``import simulator`` calls it (``import workloads`` imports it first).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

# old dotted name -> new dotted name
MOVED = {
    "simulator.atomic_write": "simulator.files.atomic_write",
    "simulator.cache_slots": "simulator.engine.counts",
    "simulator.compile_marks": "simulator.engine.compile_marks",
    "simulator.engine_fast": "simulator.engine.fast",
    "simulator.engine_simpy": "simulator.engine.simpy",
    "simulator.experiments.figure_draw": "simulator.experiments.figures.draw",
    "simulator.experiments.figure_style": "simulator.experiments.figures.style",
    "simulator.experiments.figure_tables": "simulator.experiments.figures.tables",
    "simulator.experiments.report_figures": "simulator.experiments.report.figures",
    "simulator.experiments.report_figures_claims": "simulator.experiments.report.figures_claims",
    "simulator.experiments.report_index": "simulator.experiments.report.index",
    "simulator.experiments.sweep_checks": "simulator.experiments.sweep.checks",
    "simulator.experiments.sweep_chunks": "simulator.experiments.sweep.chunks",
    "simulator.experiments.sweep_cluster": "simulator.experiments.sweep.cluster",
    "simulator.experiments.sweep_code": "simulator.experiments.sweep.code",
    "simulator.experiments.sweep_manifest": "simulator.experiments.sweep.manifest",
    "simulator.experiments.sweep_store": "simulator.experiments.sweep.store",
    "simulator.fast_index": "simulator.engine.fast_index",
    "simulator.hook_source": "simulator.engine.hook_source",
    "simulator.hook_types": "simulator.engine.hook_types",
    "simulator.input_files": "simulator.files.input_files",
    "simulator.kernel_cache": "simulator.engine.kernel_cache",
    "simulator.kernels": "simulator.engine.kernels",
    "simulator.memory_estimate": "simulator.engine.memory_estimate",
    "simulator.object_table": "simulator.files.object_table",
    "simulator.output_set": "simulator.files.output_set",
    "simulator.partial_files": "simulator.files.partial_files",
    "simulator.policy_checks": "simulator.testing.contract",
    "simulator.policy_checks.budget": "simulator.testing.contract.budget",
    "simulator.policy_checks.contract": "simulator.testing.contract.contract",
    "simulator.policy_checks.paging": "simulator.testing.contract.paging",
    "simulator.policy_checks.semantic": "simulator.testing.contract.semantic",
    "simulator.policy_checks.traces": "simulator.testing.contract.traces",
    "simulator.policy_faults": "simulator.engine.policy_faults",
    "simulator.run_arrays": "simulator.engine.run_arrays",
    "simulator.size_limits": "simulator.engine.size_limits",
    "simulator.step_checks": "simulator.engine.step_checks",
    "workloads.adversarial": "workloads.adversaries.workload",
    "workloads.adversary": "workloads.adversaries.builder",
    "workloads.answer_f1": "workloads.data.answer_f1",
    "workloads.data_home": "workloads.data.data_home",
    "workloads.event_fields": "workloads.data.event_fields",
    "workloads.event_files": "workloads.data.event_files",
    "workloads.event_labels": "workloads.data.event_labels",
    "workloads.events": "workloads.data.events",
    "workloads.item_sizes": "workloads.data.item_sizes",
    "workloads.json_text": "workloads.data.json_text",
    "workloads.locomo_data": "workloads.data.locomo_data",
    "workloads.solar_files": "workloads.data.solar_files",
    "workloads.text_embed": "workloads.data.text_embed",
    "workloads.topic_space": "workloads.data.topic_space",
}


class Aliases(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old names of one table and loads each as the module at its new path.

    ``moved`` maps old dotted names to new ones, each import warning; ``kept`` maps names
    that stay documented (no warning).  One class for every package's table
    (:mod:`theory.moved` has its own).
    """

    def __init__(self, moved: dict, kept: dict | None = None):
        self.moved, self.kept = moved, kept or {}

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.moved and fullname not in self.kept:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        new = self.moved.get(spec.name)
        if new is None:
            return importlib.import_module(self.kept[spec.name])
        warnings.warn(f"{spec.name} moved to {new}; import {new}", DeprecationWarning,
                      stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module):
        pass  # the module at its new path is already executed


def install(moved: dict = MOVED, kept: dict | None = None) -> None:
    """Let the old names of ``moved`` (and ``kept``) import, once per process per table."""
    if not any(isinstance(f, Aliases) and f.moved is moved for f in sys.meta_path):
        # first: a stale copy of an old file (an install upgraded in place) must not win
        sys.meta_path.insert(0, Aliases(moved, kept))
