"""How every figure looks: one colour per policy, legends outside the data, legible ticks.

The report's figures, each table's plot and the notebooks all take a policy's colour from
:func:`policy_color`, so a policy keeps its colour from one figure to the next.  The paper's
seven policies keep matplotlib's default order (FIFO blue, LRU orange, …); an authors'-code
variant ``X_ref`` is a lighter shade of ``X``'s colour (the same algorithm, another
implementation).  A name the palette does not know (a metric, your own policy) gets a
colour from :data:`OTHER` chosen by a hash of the name, so it too is the same in every run.

>>> policy_color("solar") == policy_color("solar")
True
>>> policy_color("lru_ref") != policy_color("lru")
True
"""

from __future__ import annotations

import zlib

MAX_LINES = 8  # lines a panel shows before a figure is faceted into more panels

POLICY_COLORS = {
    # the SOLAR paper's seven, in matplotlib's default order
    "fifo": "#1f77b4", "lru": "#ff7f0e", "lfu": "#2ca02c", "arc": "#d62728",
    "solar_e": "#9467bd", "solar_a": "#8c564b", "solar": "#e377c2",
    # references: keep everything, the offline optimum
    "unlimited": "#7f7f7f", "belady": "#000000", "opt": "#000000",
    # other classic policies
    "random": "#e7ba52", "s3fifo": "#5254a3", "sieve": "#9c9ede", "tinylfu": "#8ca252",
    "twoq": "#d6616b",
    # the memory-management study's strategies
    "strict": "#393b79", "add_all": "#17becf", "fixed": "#bcbd22", "coarse": "#843c39",
    "history": "#d95f02", "periodic": "#8c6d31", "combined": "#7b4173",
    # agent frameworks' memory rules: a paper and its shipped code in two shades of one hue
    "memorybank": "#1b9e77", "memorybank_shipped": "#66c2a5", "memoryos": "#637939",
    "memoryos_shipped": "#b5cf6b", "generative_agents": "#ad494a", "letta": "#bd9e39",
    "langmem": "#a55194", "mem0_surrogate": "#ce6dbd", "amem": "#fd8d3c", "zep": "#636363",
    # the stylized model of Theorem 5.6 (theory.claims)
    "ts": "#e6550d", "ts_restart": "#31a354", "oracle": "#404040", "device": "#756bb1",
}

# colours of names the palette does not know: none is a policy's colour
OTHER = ("#08519c", "#a63603", "#006d2c", "#54278f", "#99000d", "#525252", "#b15928",
         "#01665e", "#8e0152", "#6a51a3")

PAPER_MARKER = dict(marker="x", ms=7, mew=1.5, ls="none")


def new_figure(**kwargs):
    """A Figure drawn by Agg, made without pyplot: drawing a report or a table's plot never
    switches the backend of the caller (a notebook keeps showing its own figures inline).

    Parameters
    ----------
    **kwargs
        As for ``matplotlib.figure.Figure`` (``figsize``, ``layout`` …).

    Returns
    -------
    matplotlib.figure.Figure
        With an Agg canvas: ``fig.canvas.draw()`` and ``fig.savefig`` work; nothing to close.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(**kwargs)
    FigureCanvasAgg(fig)
    return fig


def _lighter(hex_color: str, amount: float = 0.4) -> str:
    """``hex_color`` mixed with white (``amount`` of white)."""
    rgb = [int(hex_color[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in rgb)


def policy_color(name: str) -> str:
    """The colour of policy ``name`` in every figure (a hex string).

    Parameters
    ----------
    name : str
        A policy name (``fifo``, ``solar_ref`` …) or any other label.

    Returns
    -------
    str
        ``#rrggbb``: the palette's colour, a lighter shade of ``X``'s for ``X_ref``, else
        one of :data:`OTHER` chosen by a hash of ``name`` (stable across runs).
    """
    if name in POLICY_COLORS:
        return POLICY_COLORS[name]
    if name.endswith("_ref") and name[:-4] in POLICY_COLORS:
        return _lighter(POLICY_COLORS[name[:-4]])
    return OTHER[zlib.crc32(name.encode()) % len(OTHER)]


def known(name: str) -> bool:
    """Whether ``name`` is a policy of the palette (or an ``X_ref`` of one)."""
    return name in POLICY_COLORS or (name.endswith("_ref") and name[:-4] in POLICY_COLORS)


def colors_for(keys) -> dict:
    """A colour for each of ``keys`` (one panel): a policy's own, and for the others one of
    :data:`OTHER` not yet taken in the panel, so two lines of a panel never share one."""
    out, taken = {}, set()
    for key in keys:
        if key in out:
            continue
        if known(key):
            out[key] = policy_color(key)
        else:
            start = zlib.crc32(key.encode()) % len(OTHER)
            free = [OTHER[(start + i) % len(OTHER)] for i in range(len(OTHER))]
            out[key] = next((c for c in free if c not in taken), free[0])
        taken.add(out[key])
    return out


def legend_below(ax, handles=None, labels=None, fontsize: float = 7, ncol: int | None = None,
                 drawn: bool = False):
    """A legend under ``ax``'s x label, never over its data.

    It hangs a fixed distance (in inches) below the axes' tick labels and x label, measured
    after a draw, so a layout that resizes the axes keeps it clear of them.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    handles, labels : list, optional
        As for ``Axes.legend`` (default: the axes' labelled artists).
    fontsize : float
    ncol : int, optional
        Columns (default: 1 up to 3 entries, then 2, then 3 from 13 entries on).
    drawn : bool
        The figure was drawn since its last change (skips a draw: a figure of many panels
        draws once, then places each panel's legend).

    Returns
    -------
    matplotlib.legend.Legend or None
        None when there is nothing to show.
    """
    from matplotlib.transforms import ScaledTranslation

    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    fig = ax.figure
    if not drawn:  # the tick labels and x label have their sizes only once drawn
        fig.canvas.draw()
    box = ax.get_tightbbox(fig.canvas.get_renderer())
    depth = (ax.bbox.y0 - box.y0) / fig.dpi + 0.08  # inches from the axes to below the label
    ncol = ncol or (1 if len(handles) <= 3 else 2 if len(handles) <= 12 else 3)
    return ax.legend(handles, labels, loc="upper center", fontsize=fontsize, ncol=ncol,
                     frameon=False, bbox_to_anchor=(0.5, 0),
                     bbox_transform=ax.transAxes + ScaledTranslation(0, -depth,
                                                                     fig.dpi_scale_trans))


def include_in_y(ax, value: float, pad: float = 0.05) -> None:
    """Widen ``ax``'s y range so that ``value`` lies inside it (a ratio axis shows 1)."""
    import math

    lo, hi = ax.get_ylim()
    if lo <= value <= hi:
        return
    if ax.get_yscale() == "log":
        lo, hi = min(lo, value), max(hi, value)
        span = math.log10(hi / lo) or 1.0
        ax.set_ylim(lo / 10 ** (pad * span), hi * 10 ** (pad * span))
    else:
        lo, hi = min(lo, value), max(hi, value)
        ax.set_ylim(lo - pad * (hi - lo), hi + pad * (hi - lo))


def _tick_text(value: float, _pos=None) -> str:
    """A log tick as a plain number (200, 0.05, 2e+06), not a crowded 2×10²."""
    return f"{value:g}"


def log_ticks_at(axis, values) -> None:
    """Major ticks of a log ``axis`` (``ax.xaxis``) at the measured ``values`` only, labelled
    as plain numbers, no minor labels."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

    axis.set_major_locator(FixedLocator(sorted(values)))
    axis.set_major_formatter(FuncFormatter(_tick_text))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


def log_ticks(axis, lo: float, hi: float) -> None:
    """Labelled ticks of a log ``axis`` between ``lo`` and ``hi``: 1, 2, 5 per decade over
    less than three decades, else the powers of ten only (labels never overlap); unlabelled
    minor ticks in between."""
    import math

    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    decades = math.log10(hi / lo) if lo > 0 and hi > lo else 1.0
    subs = (1.0, 2.0, 5.0) if decades < 1.5 else (1.0, 3.0) if decades < 3 else (1.0,)
    if decades < 1.5 and _labelled(lo, hi, subs) < 2:  # a narrow range: every integer
        subs = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0) if decades < 0.5 else \
            (1.0, 2.0, 3.0, 5.0, 7.0)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(_tick_text))
    axis.set_minor_locator(LogLocator(base=10, subs=tuple(range(2, 10))))
    axis.set_minor_formatter(NullFormatter())


def _labelled(lo: float, hi: float, subs) -> int:
    """How many ticks ``subs`` × 10^n fall in [lo, hi]."""
    import math

    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    return sum(lo <= m * 10 ** e <= hi for e in range(first, last + 1) for m in subs)
