"""The one X connection of the process, and the helper every failing Xlib call goes through."""
import contextlib
import logging

from Xlib import X, display as xdisplay, error as xerror

from .errors import DisplayError, X11Error

log = logging.getLogger(__name__)


class XConnection:
    """Owns the process's single `Display`. Use `checked()` around requests that may fail."""

    def __init__(self, name=None):
        try:
            self.display = xdisplay.Display(name)
        except (xerror.DisplayError, xerror.ConnectionClosedError, OSError) as e:
            raise DisplayError(f"cannot open X display {name or '$DISPLAY'}: {e}") from e
        self.name = self.display.get_display_name()
        self.screen = self.display.screen()
        self.root = self.screen.root
        self._async_errors = []
        self.display.set_error_handler(self._on_async_error)
        self._atoms = {}
        self.mapping_listeners = []

    @property
    def width(self):
        return self.screen.width_in_pixels

    @property
    def height(self):
        return self.screen.height_in_pixels

    @property
    def resource_mask(self):
        return self.display.display.info.resource_id_mask

    def _on_async_error(self, err, request=None):
        self._async_errors.append(err)

    @contextlib.contextmanager
    def checked(self, what):
        """Run X requests, then sync: any X error (reply or async) becomes an `X11Error`."""
        self._async_errors.clear()
        try:
            yield self.display
            self.display.sync()
        except xerror.XError as e:
            raise X11Error(f"{what}: {describe(e)}", type(e).__name__) from e
        except (xerror.ConnectionClosedError, OSError) as e:
            raise DisplayError(f"{what}: X connection lost: {e}") from e
        if self._async_errors:
            e = self._async_errors[0]
            self._async_errors.clear()
            raise X11Error(f"{what}: {describe(e)}", type(e).__name__)

    def atom(self, name):
        if name not in self._atoms:
            with self.checked(f"intern atom {name}") as d:
                self._atoms[name] = d.intern_atom(name)
        return self._atoms[name]

    def drain_events(self):
        """Handle queued events; MappingNotify tells listeners the keyboard map changed."""
        try:
            while self.display.pending_events():
                ev = self.display.next_event()
                if ev.type == X.MappingNotify:
                    for listener in self.mapping_listeners:
                        listener(ev)
        except (xerror.ConnectionClosedError, OSError) as e:
            raise DisplayError(f"X connection lost: {e}") from e

    def close(self):
        try:
            self.display.close()
        except Exception:  # closing a dead connection must not mask the real exit reason
            log.debug("display close failed", exc_info=True)


def describe(err):
    name = type(err).__name__
    parts = [name]
    rid = getattr(err, "resource_id", None)
    if rid:
        parts.append(f"resource 0x{int(getattr(rid, 'id', rid)):x}")
    major = getattr(err, "major_opcode", None)
    if major is not None:
        parts.append(f"request {major}.{getattr(err, 'minor_opcode', 0)}")
    return "X error " + ", ".join(parts)
