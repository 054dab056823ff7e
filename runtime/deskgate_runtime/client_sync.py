"""Knowing when the focused client has caught up with our keyboard-map changes.

Remapping a spare keycode races: the client interprets a key event with the map it fetches
when it handles the MappingNotify (Tk, xkbcommon toolkits) or at its next key lookup (plain
Xlib). If we rebind or restore the keycode before that, the character is lost or wrong.

We watch, with the RECORD extension on a second connection, for keymap fetches
(core GetKeyboardMapping, XKB GetMap) and for our own ChangeKeyboardMapping requests, in the
order the server dispatched them. A fetch by the client, after our n-th change, of a key range
that covers the keycode that change touched can only come from the client having read that
change's notify, so it has taken in (and, for the toolkits tested, interpreted) every key
event queued to it before. A fetch that does not cover it may answer an older notify.
"""
import collections
import logging
import struct
import threading

from Xlib import display as xdisplay
from Xlib.ext import record

log = logging.getLogger(__name__)

CHANGE_KEYBOARD_MAPPING, GET_KEYBOARD_MAPPING = 100, 101
XKB_GET_MAP = 8
XKB_KEY_SYMS_MASK = 1 << 1


class ClientSync:
    def __init__(self, display_name, own_resource_base):
        self.available = False
        self._own_base = own_resource_base
        self._cond = threading.Condition()
        self._changes_seen = 0
        # client id base -> recent keymap fetches: (our changes seen, first keycode, last keycode)
        self._fetches = collections.defaultdict(lambda: collections.deque(maxlen=32))
        self._started = threading.Event()
        try:
            self._rd = xdisplay.Display(display_name)
            if not self._rd.has_extension("RECORD"):
                log.warning("no RECORD extension: keymap remapping falls back to short waits")
                self._rd.close()
                return
            xkb = self._rd.query_extension("XKEYBOARD")
            xkb_major = xkb.major_opcode if xkb and xkb.present else 0
            self._xkb_major = xkb_major
            ranges = [_range(core=(CHANGE_KEYBOARD_MAPPING, GET_KEYBOARD_MAPPING))]
            if xkb_major:
                ranges.append(_range(ext=(xkb_major, xkb_major, XKB_GET_MAP, XKB_GET_MAP)))
            self._ctx = self._rd.record_create_context(0, [record.AllClients], ranges)
        except Exception as e:  # RECORD is an optimisation; never fatal
            log.warning("RECORD unavailable (%s): keymap remapping falls back to short waits", e)
            return
        self._thread = threading.Thread(target=self._run, name="client-sync", daemon=True)
        self._thread.start()
        self.available = self._started.wait(2.0)

    def _run(self):
        try:
            self._rd.record_enable_context(self._ctx, self._on_record)
        except Exception as e:
            log.warning("RECORD stream ended: %s", e)
        finally:
            self.available = False
            self._started.set()
            with self._cond:
                self._cond.notify_all()

    def _on_record(self, r):
        if r.category == record.StartOfData:
            self._started.set()
            return
        if r.category != record.FromClient or len(r.data) < 2:
            return
        major, minor = r.data[0], r.data[1]
        with self._cond:
            if major == CHANGE_KEYBOARD_MAPPING and r.id_base == self._own_base:
                self._changes_seen += 1
            else:
                span = _fetched_keycodes(r.data, r.client_swapped, major, self._xkb_major)
                if span:
                    self._fetches[r.id_base].append((self._changes_seen,) + span)
                    self._cond.notify_all()

    def wait_fetch_after(self, client_base, change_number, keycode, timeout):
        """True once `client_base` fetched `keycode`'s mapping after our change `change_number`."""
        def seen():
            return any(n >= change_number and first <= keycode <= last
                       for n, first, last in self._fetches[client_base])
        with self._cond:
            return self._cond.wait_for(lambda: not self.available or seen(), timeout) \
                and self.available

    def close(self):
        if self.available:
            self.available = False
            try:
                self._rd.record_disable_context(self._ctx)
                self._rd.flush()
            except Exception:
                pass


def _range(core=(0, 0), ext=(0, 0, 0, 0)):
    return {"core_requests": core, "core_replies": (0, 0), "ext_requests": ext,
            "ext_replies": (0, 0, 0, 0), "delivered_events": (0, 0), "device_events": (0, 0),
            "errors": (0, 0), "client_started": False, "client_died": False}


def _fetched_keycodes(data, swapped, major, xkb_major):
    """(first, last) keycodes a recorded GetKeyboardMapping / XkbGetMap asks for, or None."""
    if major == GET_KEYBOARD_MAPPING and len(data) >= 6:
        first, count = data[4], data[5]
        return (first, first + count - 1) if count else None
    if major == xkb_major and len(data) >= 14:
        full, partial = struct.unpack((">" if swapped else "<") + "HH", bytes(data[6:10]))
        if full & XKB_KEY_SYMS_MASK:
            return (0, 255)
        if partial & XKB_KEY_SYMS_MASK and data[13]:
            return (data[12], data[12] + data[13] - 1)
    return None
