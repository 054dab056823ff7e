"""The one X connection of the process, and the helper every failing Xlib call goes through."""
import contextlib
import logging
import select
import time

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
        self.event_listeners = []  # every other event (the window tracker's)
        self._after_grab = None  # while the server is grabbed: what to do once it is released

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
    def checked(self, what, sync=True):
        """Run X requests, then sync: any X error (reply or async) becomes an `X11Error`.

        `sync=False` when the block ends with a request that waits for its reply: the server
        answers in order, so that reply already came after every error of the block. A block
        that sent nothing is not synced either.
        """
        self._async_errors.clear()
        serial = self.display.display.request_serial
        try:
            yield self.display
            if sync and self.display.display.request_serial != serial:
                self.display.sync()
        except xerror.XError as e:
            raise X11Error(f"{what}: {describe(e)}", type(e).__name__) from e
        except (xerror.ConnectionClosedError, OSError) as e:
            raise DisplayError(f"{what}: X connection lost: {e}") from e
        if self._async_errors:
            e = self._async_errors[0]
            self._async_errors.clear()
            raise X11Error(f"{what}: {describe(e)}", type(e).__name__)

    @property
    def grabbed(self):
        return self._after_grab is not None

    @contextlib.contextmanager
    def server_grabbed(self, release_with_next_read=False):
        """Hold the server (XGrabServer) for the block: no other client's request is processed
        until it ends, so nothing another client does can come between what the block checks
        and what it sends. Input (XTest) and events to other clients still flow.

        Never wait inside for another client: it is blocked until the grab ends. Waits that
        need one go to `after_grab()`. The grab is released however the block ends.

        `release_with_next_read`: when the block ends normally, the UngrabServer is only queued,
        to go out with the requests of the caller's next read (one round trip for both). The
        caller must read, or flush, right away: every other client waits until it does.
        """
        if self.grabbed:  # nested: the outer grab covers it
            yield
            return
        self._after_grab = later = []
        ended_normally = False
        try:
            self.display.grab_server()
            yield
            ended_normally = True
        finally:
            self._after_grab = None
            try:
                self.display.ungrab_server()
                if not (release_with_next_read and ended_normally):
                    self.display.flush()  # at once: every other client waits for it
            except (xerror.ConnectionClosedError, OSError) as e:
                raise DisplayError(f"release the server grab: X connection lost: {e}") from e
        for then in later:
            then()

    def after_grab(self, then):
        """Run `then()` once the server grab ends (now, if there is none)."""
        if self.grabbed:
            self._after_grab.append(then)
        else:
            then()

    def atom(self, name):
        if name not in self._atoms:
            with self.checked(f"intern atom {name}", sync=False) as d:
                self._atoms[name] = d.intern_atom(name)
        return self._atoms[name]

    def wait_for(self, done, timeout):
        """Check `done()` again each time X events arrive (no polling), until it holds or
        `timeout` seconds pass; return its last answer. `done` should ask the server (a round
        trip), so that events sent before the change it waits for are in by then."""
        deadline = time.monotonic() + timeout
        while True:
            if done():
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if not self.drain_events():  # nothing queued: sleep until the server says something
                try:
                    select.select([self.display.fileno()], [], [], remaining)
                except OSError as e:
                    raise DisplayError(f"X connection lost: {e}") from e

    def drain_events(self):
        """Handle queued events (returns how many); MappingNotify tells listeners the keyboard
        map changed."""
        count = 0
        try:
            while self.display.pending_events():
                count += 1
                ev = self.display.next_event()
                listeners = (self.mapping_listeners if ev.type == X.MappingNotify
                             else self.event_listeners)
                for listener in listeners:
                    listener(ev)
        except (xerror.ConnectionClosedError, OSError) as e:
            raise DisplayError(f"X connection lost: {e}") from e
        return count

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
