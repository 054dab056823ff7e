"""Knowing when a client has handled the events sent to it so far: `_NET_WM_PING`.

A `_NET_WM_PING` ClientMessage sent to a client's top-level window reaches the client behind
every event the server delivered to it before (fake key events included, as the server
processes our requests in order), and the client handles its events in order, answering by
sending the message back to the root window, which this runtime watches (SubstructureNotify;
the window tracker selects it). So the answer means the keys before it were handled, with the
keyboard map the client had then: what `spare_keys` needs before it rebinds a keycode.

GTK, Qt, Chromium and Firefox list `_NET_WM_PING` in WM_PROTOCOLS; Tk answers without listing
it; xterm does not answer. A client is asked on its first use and remembered as one that
answers or not; one that does not gets the caller's timed fallback.
"""
import logging

from Xlib import X
from Xlib.protocol import event

from .errors import X11Error

log = logging.getLogger(__name__)

ANSWER_WAIT_S = 2.0   # for a client known to answer (a late answer is a busy client)
FIRST_WAIT_S = 0.5    # for a client not known either way (xterm-like clients cost this once)
STAMP_BASE = 0x7D000000  # far from the server timestamps a window manager's own pings carry
MAX_UNANSWERED = 64


class ClientPing:
    def __init__(self, x, tracker):
        self.x, self.tracker = x, tracker
        self.protocols = x.atom("WM_PROTOCOLS")
        self.ping = x.atom("_NET_WM_PING")
        self.answers = {}      # client resource base -> True (answers) / False (did not)
        self._asked = {}       # stamp -> client base, pings not answered yet (oldest first)
        self._answered = {}    # stamps answered and not looked at yet (oldest first)
        self._count = 0
        x.event_listeners.append(self._on_event)

    def _on_event(self, ev):
        if ev.type != X.ClientMessage or ev.client_type != self.protocols:
            return
        fmt, data = ev.data
        if fmt != 32 or data[0] != self.ping or data[1] not in self._asked:
            return
        self.answers[self._asked.pop(data[1])] = True  # a late answer too: it was busy
        self._answered[data[1]] = True
        _bound(self._answered)

    def ask(self, base):
        """Send the client with resource base `base` a ping, behind everything sent to it so
        far; its stamp, or None when it cannot be asked (no top-level window, or it is known
        not to answer)."""
        if base is None or self.answers.get(base) is False:
            return None
        window = self._top_level(base)
        if window is None:
            return None
        self._count = (self._count + 1) % 0x01000000
        stamp = STAMP_BASE + self._count
        message = event.ClientMessage(window=window, client_type=self.protocols,
                                      data=(32, [self.ping, stamp, window, 0, 0]))
        try:
            with self.x.checked("ping the focused client") as d:  # synced: a vanished window
                d.send_event(window, message, event_mask=0, propagate=False)  # fails here
        except X11Error:
            return None
        self._asked[stamp] = base  # kept when unanswered: a late answer still says it answers
        _bound(self._asked)
        return stamp

    def answered(self, stamp):
        """Whether the ping `stamp` was answered (by now; no waiting)."""
        self.x.drain_events()
        return self._answered.pop(stamp, None) is not None

    def handled(self, base):
        """True once the client with resource base `base` handled every event sent to it before
        this call; False when it cannot be asked, or did not answer in time (up to
        ANSWER_WAIT_S for a client known to answer, FIRST_WAIT_S for one not known either way,
        which is then known not to): the caller falls back to waiting a while."""
        self.x.drain_events()  # a late answer to an earlier ping decides how long to wait
        known = self.answers.get(base)
        stamp = self.ask(base)
        if stamp is None:
            return False
        timeout = ANSWER_WAIT_S if known else FIRST_WAIT_S
        if self.x.wait_for(lambda: stamp in self._answered, timeout):
            del self._answered[stamp]
            return True
        self.gave_up(base, timeout)
        return False

    def gave_up(self, base, waited):
        """No answer from `base` after `waited` seconds: a client not known to answer is taken
        as one that does not."""
        if self.answers.get(base):
            log.warning("client 0x%x did not answer a ping within %.1f s", base, waited)
        else:
            self.answers[base] = False

    def reachable(self, base):
        """Whether the client still has a top-level window to ask."""
        return self._top_level(base) is not None

    def _top_level(self, base):
        """The client's managed top-level window (its last in the client list), or None."""
        self.tracker.refresh()
        mask = self.x.resource_mask
        windows = [c.id for c in self.tracker.client_list() if c.id & ~mask == base]
        return windows[-1] if windows else None


def _bound(stamps):
    """Keep the oldest-first dict of stamps at MAX_UNANSWERED (clients that never answer)."""
    while len(stamps) > MAX_UNANSWERED:
        stamps.pop(next(iter(stamps)))
