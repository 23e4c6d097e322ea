"""Figures: how they look, the panels of a table, and drawing a figure document."""
