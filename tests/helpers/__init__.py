"""What the test modules share and are not tests themselves: the plain-Python twins of the
kernels, policies and OPT (``naive*``), the hostile-input contract, the LoCoMo fixture, the
declared datasets, the pinned unsized digests and the cloud-physics traces."""
