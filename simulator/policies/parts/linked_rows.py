"""Doubly linked lists threaded through the rows of one int64 table (not a policy).

Several policies (ARC, 2Q, S3-FIFO, W-TinyLFU) keep their queues as rows
``(prev, next, list, ...)`` of one table, each list closed by a sentinel row whose
``next`` is the list's front and ``prev`` its back.  These are the two operations they
share; every other column belongs to the policy.
"""

from simulator.config import njit

PREV, NEXT, LIST = 0, 1, 2


@njit
def unlink(table, i):
    """Take row ``i`` out of whatever list it is in."""
    prv = table[i, PREV]
    nxt = table[i, NEXT]
    table[prv, NEXT] = nxt
    table[nxt, PREV] = prv


@njit
def push_front(table, head, i, lst):
    """Put row ``i`` at the front of the list with sentinel ``head``, tagged ``lst``."""
    first = table[head, NEXT]
    table[i, PREV] = head
    table[i, NEXT] = first
    table[i, LIST] = lst
    table[first, PREV] = i
    table[head, NEXT] = i


@njit
def push_back(table, head, i, lst):
    """Put row ``i`` at the back of the list with sentinel ``head``, tagged ``lst``."""
    last = table[head, PREV]
    table[i, PREV] = last
    table[i, NEXT] = head
    table[i, LIST] = lst
    table[last, NEXT] = i
    table[head, PREV] = i


@njit
def free_row(table, i, free_at):
    """Unlink row ``i`` and put it on the free-row stack whose top is ``table[free_at]``."""
    unlink(table, i)
    table[i, NEXT] = table[free_at]
    table[free_at] = i
