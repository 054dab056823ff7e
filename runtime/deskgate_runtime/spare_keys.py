"""Borrowing keycodes to type keysyms that are not on the keyboard map.

Why it is built this way (measured against Tk under Xvfb):
- A client refreshes its keymap copy when it *reads* a MappingNotify, but interprets a key
  when it *handles* the event, later. Rebinding a keycode before then loses the character.
- libX11 drops change notes that arrive while it is fetching the map for an earlier notify,
  so several notifies in quick succession can leave the client with a stale copy for good.
So bindings live in one contiguous block of borrowable keycodes (spare ones, and ones that only
carry XF86 multimedia keysyms), written with ONE ChangeKeyboardMapping per batch, so each batch
is one notify. Before another batch is written we wait (RECORD, see client_sync.py) until the
focused client fetched the previous one. Slots are reused only when a text needs more distinct
characters than the block holds; then we also wait for the client to read our latest change
and allow it time to handle the key events it has read. Borrowed keycodes are given back once
the runtime has been idle for DEFERRED_RESTORE_S, so the restore never races the client.
"""
import collections
import logging
import time

from Xlib import X
from Xlib.ext import xtest

from .errors import DisplayError, Unsupported, X11Error

log = logging.getLogger(__name__)

FETCH_WAIT_S = 0.25       # for the client to fetch a batch we wrote
LAZY_WAIT_S = 0.5         # after a no-op key, for clients that refresh at their next lookup
GRACE_S = 0.005           # after the client read our change, to handle what it read...
GRACE_PER_KEY_S = 0.0005  # ...plus this per key press sent since
GRACE_MAX_S = 0.25
NO_RECORD_WAIT_S = 0.05
DEFERRED_RESTORE_S = 0.5
RESTORE_PATIENCE_S = 10.0  # for a client to answer a ping behind our keys before a restore


class SparePool:
    def __init__(self, x, keymap, sync, ping):
        self.x, self.keymap, self.sync, self.ping = x, keymap, sync, ping
        self.slots = {}                      # keycode -> keysym bound by us (0 = free)
        self.pinned = collections.Counter()  # keycodes held down by key_down/hold_key
        self.changes_sent = 0
        self.presses_since_write = 0
        self.pending_fetch = False           # last batch written, client fetch not yet seen
        self.restore_due = None
        self.typed_into = {}                 # client base -> None, or (ping stamp, asked at)
        self.stats = collections.Counter()

    @property
    def block(self):
        return self.keymap.block

    def bound_keycode(self, keysym):
        for kc, ks in self.slots.items():
            if ks == keysym:
                return kc
        return None

    def keycode_for(self, keysym):
        kc = self.bound_keycode(keysym)
        if kc is None:
            self.prepare([keysym])
            kc = self.bound_keycode(keysym)
        self.restore_due = None
        return kc

    def prepare(self, keysyms):
        """Bind as many of `keysyms` (distinct, in order of use) as fit, in one write."""
        self.restore_due = None
        if not self.block:
            raise Unsupported("no spare keycodes to bind characters missing from the keymap")
        missing = [ks for ks in dict.fromkeys(keysyms) if self.bound_keycode(ks) is None]
        if not missing:
            return
        free = [kc for kc in self.block if not self.slots.get(kc)]
        if len(free) < len(missing):
            # Reuse slots: the client must be done with every key we sent through them.
            self.client_barrier()
            keep = set(keysyms)
            for kc in self.block:
                if self.slots.get(kc) and not self.pinned[kc] and self.slots[kc] not in keep:
                    self.slots[kc] = 0
            free = [kc for kc in self.block if not self.slots.get(kc)]
            if not free:
                raise Unsupported("no spare keycode left: all are held down")
            self.stats["reuses"] += 1
        for kc, ks in zip(free, missing):
            self.slots[kc] = ks
        self._write()

    def mark_pressed(self, kc):
        self.presses_since_write += 1

    # -- writing the block ----------------------------------------------------------------
    def _rows(self):
        width = max(2, self.keymap.keysyms_per_keycode)
        rows = []
        for kc in self.block:
            ks = self.slots.get(kc)
            if ks:
                rows.append((ks, ks) + (0,) * (width - 2))  # both levels: no case pairs
            else:  # NoSymbol, or the multimedia keysyms it had
                rows.append((tuple(self.keymap.original.get(kc, ())) + (0,) * width)[:width])
        return rows

    def _write(self):
        if self.pending_fetch:
            self._wait_client_fetch(FETCH_WAIT_S)
        with self.x.checked(f"bind keysyms to keycodes {self.block[0]}-{self.block[-1]}") as d:
            d.change_keyboard_mapping(self.block[0], self._rows())
            self.changes_sent += 1
            d.get_keyboard_mapping(self.block[0], 1)  # a round trip: the server applied it
        self.keymap.borrowed = {kc for kc, ks in self.slots.items() if ks}
        self.pending_fetch = True
        self.presses_since_write = 0
        self.stats["writes"] += 1

    def _wait_client_fetch(self, timeout, target=None):
        target = self._target_client_base() if target is None else target
        ok = False
        if self.sync.available and target is not None:
            ok = self.sync.wait_fetch_after(target, self.changes_sent, self.block[0], timeout)
        else:
            time.sleep(NO_RECORD_WAIT_S)
        self.pending_fetch = False
        if not ok:
            self.stats["fetch_timeouts"] += 1
        return ok

    def client_barrier(self):
        """Before reusing slots: the client read our last change and handled the keys sent
        since (it answered a ping sent behind them), or had time to."""
        self.stats["barriers"] += 1
        target = self._target_client_base()
        ok = self._wait_client_fetch(FETCH_WAIT_S, target) if self.pending_fetch else True
        if not ok and self.sync.available:
            # Plain-Xlib clients refresh at their next key lookup: a key bound to nothing.
            probe = next((kc for kc in self.block if not self.slots.get(kc)
                          and kc not in self.keymap.original), None)
            if probe is not None:
                with self.x.checked("no-op key for keymap refresh") as d:
                    xtest.fake_input(d, X.KeyPress, probe)
                    xtest.fake_input(d, X.KeyRelease, probe)
                self.pending_fetch = True
                self._wait_client_fetch(LAZY_WAIT_S, target)
        if self.ping.handled(target):
            self.stats["pinged"] += 1
        else:  # a client that does not answer: time to handle what it read, estimated
            time.sleep(min(GRACE_MAX_S, GRACE_S + GRACE_PER_KEY_S * self.presses_since_write))
        self.presses_since_write = 0

    def _target_client_base(self):
        with self.x.checked("get input focus") as d:
            focus = d.get_input_focus().focus
            if isinstance(focus, int) or focus.id == self.x.root.id:  # PointerRoot / None
                win, child = self.x.root, self.x.root.query_pointer().child
                while child:
                    win, child = child, child.query_pointer().child
                focus = win
        if focus.id == self.x.root.id:
            return None
        return focus.id & ~self.x.resource_mask

    # -- giving keycodes back -------------------------------------------------------------
    def finish(self):
        """After a burst of typing: give the keycodes back once things are quiet and the client
        it went to has handled it (a client that has not even read the keys yet — frozen, or
        starved on a loaded machine — would read them with the keycodes given back)."""
        if any(self.slots.values()):
            self.restore_due = time.monotonic() + DEFERRED_RESTORE_S
            try:  # keys went out since any ping asked: (re)ask behind them
                self.typed_into[self._target_client_base()] = None
            except (X11Error, DisplayError):  # called in `finally`: never mask the op's own error
                log.debug("no focus to ask before giving keycodes back", exc_info=True)

    def idle(self):
        if self.restore_due is not None and time.monotonic() >= self.restore_due \
                and not self._clients_handling():
            self.restore()

    def _clients_handling(self):
        """Whether a client typed into since the last write has not yet answered a ping sent
        behind those keys; asks the ones not asked yet. Nothing waits on a restore, so each
        client gets RESTORE_PATIENCE_S, then the keycodes are given back regardless."""
        now = time.monotonic()
        for base, asked in list(self.typed_into.items()):
            if asked is None:
                stamp = self.ping.ask(base)
                if stamp is None:  # cannot be asked: the deferral above is all there is
                    del self.typed_into[base]
                else:
                    self.typed_into[base] = (stamp, now)
                continue
            stamp, asked_at = asked
            if self.ping.answered(stamp) or not self.ping.reachable(base):  # or it is gone
                del self.typed_into[base]
            elif now - asked_at > RESTORE_PATIENCE_S:
                self.ping.gave_up(base, RESTORE_PATIENCE_S)
                del self.typed_into[base]
        return bool(self.typed_into)

    def restore(self):
        """Unbind every borrowed keycode that is not held down (one write)."""
        self.restore_due = None
        self.typed_into.clear()
        if not any(ks and not self.pinned[kc] for kc, ks in self.slots.items()):
            return
        for kc in list(self.slots):
            if not self.pinned[kc]:
                self.slots[kc] = 0
        self._write()
        self.pending_fetch = False
        self.keymap.reload()
