"""Offline optimum, competitive ratios, regret and claim checks (SPEC §4).

This package is part of the layout from the start; its contents arrive with the theory
issue.  Nothing here is imported by the simulator.
"""
