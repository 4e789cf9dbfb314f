"""Exceptions.  BenchlibError means the request was wrong (the CLI prints
its message and exits 2); MeasurementError means the system refused."""


class BenchlibError(ValueError):
    """Bad input: unknown benchmark or parameter, value out of range."""


class MeasurementError(RuntimeError):
    """The C side failed (a system call, an allocation)."""
