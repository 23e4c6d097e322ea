"""The one exception type for bad input; the CLI turns it into one line and exit code 2."""


class InputError(ValueError):
    """Bad user input: a trace array, an option or a parameter; the message names it and the fix."""
