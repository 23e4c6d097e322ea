"""Letta (MemGPT): a token-budgeted FIFO message queue, compacted by a summary.

letta-ai/letta at commit 2a31a7fbd53223d9c894768ef7d24220b960efb6, the last commit with
the ``MESSAGE_SUMMARY_*`` constants (the next, 50de3cb4b, "Rework summarizer", moved the
rule into ``letta/services/summarizer``; the repository's head archives the code):
``letta/constants.py`` sets ``MESSAGE_SUMMARY_WARNING_FRAC = 0.75``,
``MESSAGE_SUMMARY_TRUNC_TOKEN_FRAC = 0.75`` and ``MESSAGE_SUMMARY_TRUNC_KEEP_N_LAST = 3``;
``letta/agent.py`` uses them.  What the code does, found there (a first reading said "at
75 % of the window, evict the oldest until 75 % remain"):

* at 75 % of the context window (``WARNING_FRAC``) the agent only gets a *warning*
  message; messages leave when the context overflows: the LLM call fails with a context
  window error and ``summarize_messages_inplace`` runs, then the step is retried;
* ``summarize_messages_inplace``: ``desired = int(buffer_tokens * TRUNC_TOKEN_FRAC)`` of
  the messages after the system prompt; the candidates are those messages but the last
  ``KEEP_N_LAST``; walking them oldest first, the span ends at the first message whose
  running token count exceeds ``desired`` (all candidates if none does).  So about 75 %
  of the buffer's tokens are *summarized away* and about 25 % remain;
* the span (the previous summary, the first message after the system prompt, included)
  is replaced by one summary message, of at most 100 words
  (``letta/prompts/gpt_summarize.py``, ``WORD_LIMIT``).

Here (docs/model.md §1.8): a message is an item, its size its tokens, the window W the
run's budget B (without a budget, the count limit K, every message one unit whatever its
size).  The summary is no item of the trace: it holds ``s = ceil(summary_share · W)`` of
the window (at most W − 1) once the first compaction has written it, and each compaction
rewrites it (``note_rewrites``: one rewrite, λ).  Its content answers no query.  The
buffer is the summary, then the cached messages oldest admission first, then the step's
arrival.

* **Overflow**: an admission the engine cannot fit (it asks for a victim), or after the
  step's arrival s + Σ sizes > ``trigger_frac`` · W (1: only an overflow, as the code;
  0.75 gives the first reading's trigger at the warning fraction).
* **Compaction**: the span of the buffer as above (``trunc_token_frac``,
  ``keep_last_n``); every cached message in it leaves, oldest first: the first ones as
  the victims the admission needs, the rest at the step's ``delete`` (all of them,
  ``repeat_delete``); a step counts once in N however many leave.  The step's arrival
  is never in that step's span, even with ``keep_last_n = 0`` (ours: it is the message
  the step answers), at an admission or at ``delete``.  If the span holds no
  cached message (only the summary), Letta raises ``ContextWindowExceededError``; an
  admission must still make room here, so the oldest cached message leaves (ours), and a
  ``delete`` compacts no further.  Letta also raises when the span is a single message;
  here that one message leaves.
* Left out: the LLM's summary and the agent's own memory writes before trimming, message
  roles (the cutoff's shift past user and tool messages), the system prompt and core
  memory's share of the window.

Parameters: ``trunc_token_frac`` (0.75), ``keep_last_n`` (3), ``trigger_frac`` (1.0),
``summary_share`` (0.016: the 100-word summary at about 4/3 tokens a word, 133 tokens of
the default 8192-token window, ``LLM_MAX_TOKENS["DEFAULT"]`` for the default model
``gpt-4`` at the same commit; ours).
"""

import math

import numpy as np

from simulator.config import njit
from simulator.policies.base import Policy, arriving_size, note_rewrites

PARAMS = {"trunc_token_frac": 0.75, "keep_last_n": 3, "trigger_frac": 1.0,
          "summary_share": 0.016}

# cfg fields
_WINDOW, _SUMMARY, _TRUNC, _KEEP, _TRIGGER, _BUDGETED, _HAS_SUMMARY, _ARRIVING = range(8)
# The state tuple's fields by position (base.py: named state)
_CFG = 0  # the settings above, whether a summary exists, the size being admitted
_KEY = 1  # per slot: the cached key, -1 free
_SIZE = 2  # per slot: its size (tokens)
_ADM = 3  # per slot: its admission step (the queue's order)
_LEAVING = 4  # per slot: 1 when a compaction summarized it away
_ORDER = 5  # scratch: cached slots by admission


def _check(p: dict) -> str | None:
    for name in ("trunc_token_frac", "trigger_frac"):
        if not 0.0 < p[name] <= 1.0:
            return f"parameter '{name}' must be in (0, 1], got {p[name]}"
    if p["keep_last_n"] < 0:
        return f"parameter 'keep_last_n' must be >= 0, got {p['keep_last_n']}"
    if not 0.0 <= p["summary_share"] < 1.0:
        return f"parameter 'summary_share' must be in [0, 1), got {p['summary_share']}"
    return None


def summary_size(window: int, share: float) -> int:
    """The summary's share of a window of ``window`` units: ceil(share · W), at most W − 1.

    >>> summary_size(8192, 0.016), summary_size(10, 0.016), summary_size(1, 0.5)
    (132, 1, 0)
    """
    return min(math.ceil(share * window), window - 1)


def _init(ctx):
    p = ctx.params
    window = ctx.budget if ctx.budget is not None else ctx.capacity
    cfg = np.array([window, summary_size(window, p["summary_share"]), p["trunc_token_frac"],
                    p["keep_last_n"], p["trigger_frac"], float(ctx.budget is not None), 0.0,
                    1.0])
    slots = ctx.slots
    return (cfg, np.full(slots, -1, np.int64), np.zeros(slots, np.int64),
            np.zeros(slots, np.int64), np.zeros(slots, np.int8), np.zeros(slots, np.int64))


@njit
def _admit(state, t, key, x, cache):
    # without a budget the window counts messages: each is one unit, whatever its size
    state[_CFG][_ARRIVING] = arriving_size(cache) if state[_CFG][_BUDGETED] == 1.0 else 1
    return True


@njit
def _on_insert(state, slot, key, t):
    state[_KEY][slot] = key
    state[_SIZE][slot] = np.int64(state[_CFG][_ARRIVING])
    state[_ADM][slot] = t
    state[_LEAVING][slot] = 0


@njit
def _on_evict(state, slot, key, t):
    state[_KEY][slot] = -1
    state[_LEAVING][slot] = 0


@njit
def _oldest_leaving(state):
    keys, adm, leaving = state[_KEY], state[_ADM], state[_LEAVING]
    best = -1
    for s in range(keys.shape[0]):
        if keys[s] >= 0 and leaving[s] == 1 and (best < 0 or adm[s] < adm[best]):
            best = s
    return best


@njit
def _queue(state):
    """The number of cached messages, their slots oldest first in ``state[_ORDER]``, and
    their total size."""
    keys, adm, order = state[_KEY], state[_ADM], state[_ORDER]
    n, total = 0, 0
    for s in range(keys.shape[0]):
        if keys[s] >= 0:
            order[n] = s
            n += 1
            total += state[_SIZE][s]
    order[:n] = order[:n][np.argsort(adm[order[:n]])]
    return n, total


@njit
def _compact(state, n, total, arriving, t):
    """Mark the span of the buffer (summary, the ``n`` queued messages, the arrival of
    size ``arriving`` or none when 0) as leaving; the number of messages marked.  The
    step's arrival is never in the span: not yet queued (``arriving``), or queued at step
    ``t`` (a compaction at ``delete``)."""
    cfg, order, size = state[_CFG], state[_ORDER], state[_SIZE]
    summary = cfg[_SUMMARY] if cfg[_HAS_SUMMARY] == 1.0 else 0.0
    buffer = summary + total + arriving
    desired = np.floor(buffer * cfg[_TRUNC])
    queued = 1 if arriving == 0 and n > 0 and state[_ADM][order[n - 1]] == t else 0
    newest = queued + (1 if arriving > 0 else 0)  # the step's arrival, last in the buffer
    # the candidates: the buffer but its last keep_last_n entries and the arrival
    candidates = (n - queued) - max(0, int(cfg[_KEEP]) - newest)
    running = summary
    marked = 0
    if running <= desired:  # the summary alone does not end the span
        for i in range(max(candidates, 0)):
            state[_LEAVING][order[i]] = 1
            marked += 1
            running += size[order[i]]
            if running > desired:
                break
    if marked > 0:  # the span is summarized: the summary now exists, written anew
        cfg[_HAS_SUMMARY] = 1.0
    return marked


@njit
def _victim(state, t, key, x, cache):
    s = _oldest_leaving(state)
    if s >= 0:
        return s
    n, total = _queue(state)
    if _compact(state, n, total, state[_CFG][_ARRIVING], t) == 0:
        return state[_ORDER][0]  # Letta gives up here; room must be made: the oldest
    note_rewrites(cache, 1)  # the summary, written anew over the span
    return _oldest_leaving(state)


@njit
def _delete(state, t, cache):
    s = _oldest_leaving(state)
    if s >= 0:
        return s
    cfg = state[_CFG]
    n, total = _queue(state)
    summary = cfg[_SUMMARY] if cfg[_HAS_SUMMARY] == 1.0 else 0.0
    if n == 0 or summary + total <= cfg[_TRIGGER] * cfg[_WINDOW]:
        return -1
    if _compact(state, n, total, 0, t) == 0:
        return -1
    note_rewrites(cache, 1)  # the summary, written anew over the span
    return _oldest_leaving(state)


POLICY = Policy(name="letta",
                summary="token-budgeted FIFO queue; on overflow 75% of its tokens summarized",
                init=_init, victim=_victim, admit=_admit, on_insert=_on_insert,
                on_evict=_on_evict, delete=_delete, params=PARAMS, modes=("semantic",),
                check_params=_check, repeat_delete=True)
