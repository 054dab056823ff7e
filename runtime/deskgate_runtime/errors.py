"""Typed failures. Each carries the protocol error `kind` it is reported as.

Bad input is a plain `ValueError` (reported as `bad_args`); everything here is about the
X server or the desktop, not about the request's shape.
"""


class RuntimeFault(Exception):
    kind = "x11_error"

    @property
    def details(self):
        """Extra fields of the error response, beside kind and message."""
        return {}


class X11Error(RuntimeFault):
    """An X request failed; `error_name` is the X error class, e.g. "BadWindow"."""

    kind = "x11_error"

    def __init__(self, message, error_name=None):
        super().__init__(message)
        self.error_name = error_name


class DisplayError(RuntimeFault):
    """No X server, or the connection to it broke."""

    kind = "display_error"


class NotFound(RuntimeFault):
    kind = "not_found"


class Unsupported(RuntimeFault):
    kind = "unsupported"


class QuotaExceeded(RuntimeFault):
    """The desktop's process limit: fork or exec failed with EAGAIN (a container's pids limit,
    RLIMIT_NPROC)."""

    kind = "quota_exceeded"


class LaunchFailed(RuntimeFault):
    """A process could not be started for another reason (permissions, a bad cwd, ...)."""

    kind = "launch_failed"


class GuardFailed(RuntimeFault):
    """An input guard no longer held when the input was to be sent (see guard.py).

    `reason`: what changed; `sent`: what earlier chunks of the op had sent (None: nothing);
    `typed`: how many characters of a `type` those were."""

    kind = "guard_failed"

    def __init__(self, reason, sent=None, typed=None):
        super().__init__(f"{reason}; {sent or 'nothing was sent'}")
        self.reason, self.typed = reason, typed
        self.facts = None  # the facts read under the guard, when it was judged on reported ones

    @property
    def details(self):
        details = {} if self.typed is None else {"typed": self.typed}
        if self.facts is not None:
            details["facts"] = self.facts
        return details
