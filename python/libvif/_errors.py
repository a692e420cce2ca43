"""Exceptions raised by libvif, one class per library status, all VifError."""

from __future__ import annotations


class VifError(RuntimeError):
    """A libvif failure. ``status`` is the library's VifStatus code, ``str(e)`` its message."""

    status: int = -7

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status


class InvalidArgumentError(VifError, ValueError):
    """A size, bit depth, option or array the library cannot take (VIF_ERROR_INVALID_ARGUMENT)."""

    status = -1


class UnsupportedError(VifError):
    """A valid request this build or machine cannot serve (VIF_ERROR_UNSUPPORTED)."""

    status = -2


class NoDeviceError(UnsupportedError):
    """The CUDA backend was asked for but no usable GPU is present (VIF_ERROR_NO_DEVICE)."""

    status = -4


class DeviceError(VifError):
    """A CUDA call or kernel failed; the scorer cannot be used afterwards (VIF_ERROR_DEVICE)."""

    status = -5


class InputError(VifError):
    """score_files(): a missing, unreadable or malformed input file."""

    status = 1000


_BY_STATUS = {
    -1: InvalidArgumentError,
    -2: UnsupportedError,
    -4: NoDeviceError,
    -5: DeviceError,
    1000: InputError,
}


def make_error(status: int, message: str) -> VifError:
    """The exception for a library status (called by the compiled module)."""
    return _BY_STATUS.get(status, VifError)(message, status)
