"""Our model of the server's core keyboard map: which keycode (and shift level) types a keysym,
and which keycodes text input may borrow: spare ones (bound to nothing) first, then ones that
only carry XF86 multimedia keysyms (nobody presses "XF86Launch5" on a virtual desktop); the
latter get their original keysyms back when returned."""
import logging

from Xlib import X

log = logging.getLogger(__name__)
XF86_FIRST, XF86_LAST = 0x1008FF00, 0x1008FFFF


class Keymap:
    def __init__(self, x):
        self.x = x
        info = x.display.display.info
        self.min_keycode, self.max_keycode = info.min_keycode, info.max_keycode
        self.borrowed = set()  # keycodes the spare pool has bound; not part of the index
        self.original = {}     # borrowable keycode -> its keysyms before we borrowed it
        self.stale = False
        self.reload()
        x.mapping_listeners.append(self._on_mapping_notify)

    def reload(self):
        count = self.max_keycode - self.min_keycode + 1
        with self.x.checked("get keyboard mapping") as d:
            rows = d.get_keyboard_mapping(self.min_keycode, count)
        self.keysyms_per_keycode = len(rows[0]) if rows else 2
        with self.x.checked("get modifier mapping") as d:
            modifier_keys = {kc for row in d.get_modifier_mapping() for kc in row}
        self._index = {}
        spare, multimedia = [], []
        # keycode 8 is skipped: some toolkits treat the lowest keycode specially.
        for kc, row in zip(range(self.min_keycode, self.max_keycode + 1), rows):
            if kc in self.borrowed:
                (multimedia if kc in self.original else spare).append(kc)
                continue
            if not any(row):
                if kc > 8:
                    spare.append(kc)
                continue
            if kc not in modifier_keys and all(ks == 0 or XF86_FIRST <= ks <= XF86_LAST
                                               for ks in row):
                multimedia.append(kc)
                self.original[kc] = tuple(row)
            for level in (0, 1):  # group 1, levels 1-2 (plain and shifted)
                ks = row[level] if len(row) > level else 0
                if ks and (ks, 0) not in self._index and (ks, 1) not in self._index:
                    self._index[(ks, level)] = kc
        self.spare = spare + multimedia
        self.block = longest_run(sorted(self.spare))
        self._find = {}
        for (ks, level), kc in self._index.items():
            self._find.setdefault(ks, (kc, level == 1))
        self.stale = False

    def find(self, keysym):
        """(keycode, needs_shift) for a keysym on the map, else None."""
        if self.stale:
            self.reload()
        found = self._find.get(keysym)
        return None if found is None or found[0] in self.borrowed else found

    def _on_mapping_notify(self, ev):
        if ev.request != X.MappingKeyboard:
            return
        first, last = ev.first_keycode, ev.first_keycode + ev.count - 1
        ours = all(kc in self.spare for kc in range(first, last + 1))
        if not ours:
            log.info("keyboard map changed by another client (keycodes %d-%d)", first, last)
            self.stale = True


def longest_run(keycodes):
    """The longest run of consecutive keycodes: one ChangeKeyboardMapping can rewrite it all."""
    best, run = [], []
    for kc in keycodes:
        run = run + [kc] if run and kc == run[-1] + 1 else [kc]
        if len(run) > len(best):
            best = run
    return best
