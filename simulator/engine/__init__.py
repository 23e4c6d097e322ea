"""The engine's internals: the compiled step and its kernels, the SimPy engine,
and what a run checks and compiles before its loop."""
