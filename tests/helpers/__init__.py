"""What the test modules share and are not tests themselves: the plain-Python twins of the
kernels, policies and OPT (``naive*``), the hostile-input contract and the files and
requests the hostile suites start from, the events files, the OPT test instances, the
pinned paging cases, the SOLAR-format folders, the LoCoMo fixture, the declared datasets,
the pinned unsized digests and the cloud-physics traces.  A test module imports what it
shares from here, never from another test module."""
