"""The threshold path of regret-gated admission (SOLAR Alg. 1), replayed from a run.

The gate's state lives inside the compiled policy; its whole history follows from the
per-step miss costs ℓ_t that the run records (``RunResult.loss``): c ← c + ℓ_t; when
c ≥ τ the gate fires, c ← 0 and, unless τ is fixed, τ ← (1 − α)τ + α·ℓ_t.  The replay
returns the firing steps and τ_t, and :func:`gate_path` checks that the run admitted only
at firing steps, so a mismatch between this replay and the policy is caught, not ignored.

>>> import numpy as np
>>> p = replay(np.array([1.0, 1.0, 0.0, 1.0]), tau0=1.0, alpha=0.5)
>>> p["fired"].tolist(), p["tau"].tolist()
([0, 1, 3], [1.0, 1.0, 1.0, 1.0, 1.0])
"""

from __future__ import annotations

import numpy as np

from simulator.policies.parts import regret_gate


def replay(loss, tau0: float, alpha: float, fixed: bool = False) -> dict:
    """Firing steps and the threshold τ_t in force before each step (τ_T after the last)."""
    c, tau = 0.0, float(tau0)
    taus = np.empty(len(loss) + 1)
    fired = []
    for t, value in enumerate(np.asarray(loss, dtype=np.float64)):
        taus[t] = tau
        c += value
        if c >= tau:  # the policy's comparison, in the same float64 arithmetic
            fired.append(t)
            c = 0.0
            if not fixed:
                tau = (1.0 - alpha) * tau + alpha * value
    taus[len(loss)] = tau
    return {"fired": np.array(fired, dtype=np.int64), "tau": taus}


def gate_path(result) -> dict:
    """Replay the gate of a ``solar``/``solar_a`` run and check it against the run.

    Returns ``replay``'s dict plus ``admitted`` (the steps at which the run admitted).
    Raises ``RuntimeError`` if the run admitted at a step where the gate did not fire.
    """
    cfg = result.config
    prm = {**regret_gate.PARAMS, **{k: v for k, v in cfg["params"].items()
                                    if k in regret_gate.PARAMS}}
    path = replay(result.loss, regret_gate.initial_tau(prm, cfg["switch_cost"]),
                  prm["alpha"], fixed=prm["tau"] is not None)
    admitted = np.flatnonzero(result.admitted >= 0)
    extra = np.setdiff1d(admitted, path["fired"])
    if extra.size:
        raise RuntimeError(f"{cfg['policy']} admitted at step {int(extra[0])}, where the "
                           "replayed gate did not fire")
    path["admitted"] = admitted
    return path
