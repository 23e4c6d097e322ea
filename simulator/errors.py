"""The one exception type for bad input; the command line turns it into one line and exit code 2."""

from __future__ import annotations


class InputError(ValueError):
    """Bad user input: a trace array, an option or a parameter; the message names it and the fix.

    ``param``, when given, is the Python parameter at fault, and the message starts with its
    name (``capacity must be an integer >= 1, got 0``); the command line shows the flag
    that sets it instead (``--capacity must be …``).

    >>> err = InputError("capacity must be an integer >= 1, got 0", param="capacity")
    >>> err.param, str(err)
    ('capacity', 'capacity must be an integer >= 1, got 0')
    """

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.param = param
