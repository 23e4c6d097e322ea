"""A ghost FIFO bounded by the total size of the keys it remembers (not a policy).

2Q's A1out and S3-FIFO's ghost remember recently evicted keys in FIFO order.  Sized as a
share of the cache, a ghost holds keys whose sizes add up to at most its share, as
libCacheSim's byte-sized ghost queues do: a key remembered with size w first forgets the
oldest keys until w fits, and a key larger than the whole share is not remembered.  With
unit sizes this is the plain bounded FIFO (the oldest key leaves when the ghost is full).

The ghost lives in rows of a policy's int64 table (see :mod:`linked_rows`): a node holds
the key in column ``key_col`` and its size in ``size_col``; ``key_row[key]`` points at the
node, or is -1.  ``table[total_at]`` is the ghost's total size.
"""

from simulator.config import njit
from simulator.policies.parts.linked_rows import NEXT, free_row, push_back


@njit
def forget(table, key_row, node, key_col, size_col, total_at, free_at):
    """Forget the key in ghost ``node`` (a ghost hit, or the oldest key making room)."""
    key_row[table[node, key_col]] = -1
    table[total_at] -= table[node, size_col]
    free_row(table, node, free_at)


@njit
def remember(table, key_row, ghost, key, size, key_col, size_col, lst, total_at, cap,
             free_at):
    """Remember ``key`` of size ``size`` at the back of the ghost with sentinel ``ghost``,
    whose total size may not exceed ``cap``; ``lst`` tags its nodes."""
    if size > cap:
        return
    while table[total_at] + size > cap:
        forget(table, key_row, table[ghost, NEXT], key_col, size_col, total_at, free_at)
    row = table[free_at]
    table[free_at] = table[row, NEXT]
    table[row, key_col] = key
    table[row, size_col] = size
    push_back(table, ghost, row, lst)
    table[total_at] += size
    key_row[key] = row
