"""Experiments built on the core: sweeps, benchmarks, the delay study and the reproductions.

Like :mod:`simulator.cli`, this floor sits above the core (trace, engines, runner, policies)
and may use :mod:`workloads` and :mod:`theory`; the core never imports it.
"""
