"""The cached item admitted first: the fallback victim of rules whose sources have no capacity.

A-MEM, Graphiti, LangMem and mem0 never remove a memory for room, and MemoryOS falls back on
it when no segment can go; run with a count limit or a budget, they evict the oldest
admission, the rule that adds least of our own.  Not a policy.
"""

from simulator.config import njit
from simulator.policies.base import admission_steps, slot_keys


@njit
def oldest(cache):
    """The slot of the earliest admission, then the smaller key (-1 for an empty cache).

    Admission steps of cached items differ (one admission a step), so the key only
    decides for a caller's own copy of the slots."""
    slot_key, slot_adm = slot_keys(cache), admission_steps(cache)
    best = -1
    for s in range(slot_key.shape[0]):
        if slot_key[s] < 0:
            continue
        if best < 0 or slot_adm[s] < slot_adm[best] or (
                slot_adm[s] == slot_adm[best] and slot_key[s] < slot_key[best]):
            best = s
    return best
