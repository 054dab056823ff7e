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
        self.answers = {}       # client resource base -> True (answers) / False (did not)
        self._asked = {}        # stamp -> client base, for pings not answered yet
        self._answered = set()  # stamps answered
        self._count = 0
        x.event_listeners.append(self._on_event)

    def _on_event(self, ev):
        if ev.type != X.ClientMessage or ev.client_type != self.protocols:
            return
        fmt, data = ev.data
        if fmt != 32 or data[0] != self.ping or data[1] not in self._asked:
            return
        base = self._asked.pop(data[1])
        self._answered.add(data[1])
        self.answers[base] = True  # a late answer too: it answers, it was busy

    def handled(self, base):
        """True once the client with resource base `base` handled every event sent to it before
        this call; False when it has no top-level window to ask, does not answer, or did not
        answer in time (the caller then falls back to waiting a while)."""
        if base is None or self.answers.get(base) is False:
            return False
        window = self._top_level(base)
        if window is None:
            return False
        self.x.drain_events()  # a late answer to an earlier ping decides how long to wait
        known = self.answers.get(base)
        self._count = (self._count + 1) % 0x01000000
        stamp = STAMP_BASE + self._count
        self._asked[stamp] = base
        message = event.ClientMessage(window=window, client_type=self.protocols,
                                      data=(32, [self.ping, stamp, window, 0, 0]))
        if len(self._asked) > MAX_UNANSWERED:  # pings of clients that never answered
            self._asked.pop(next(iter(self._asked)))
        try:
            with self.x.checked("ping the focused client") as d:  # synced: a vanished window
                d.send_event(window, message, event_mask=0, propagate=False)  # fails here
        except X11Error:
            self._asked.pop(stamp, None)
            return False
        timeout = ANSWER_WAIT_S if known else FIRST_WAIT_S
        if self.x.wait_for(lambda: stamp in self._answered, timeout):
            self._answered.discard(stamp)
            return True
        # The ping stays asked: an answer that comes later still shows the client answers.
        if known:
            log.warning("client 0x%x did not answer a ping within %.1f s", base, timeout)
        else:
            self.answers[base] = False
        return False

    def _top_level(self, base):
        """The client's managed top-level window (its last in the client list), or None."""
        self.tracker.refresh()
        mask = self.x.resource_mask
        windows = [c.id for c in self.tracker.client_list() if c.id & ~mask == base]
        return windows[-1] if windows else None
