"""Key chords (as keysyms), held keys and text typing through XTest."""
from Xlib import X, XK
from Xlib.ext import xtest

from .keysyms import SHIFTS, char_keysym, modifier_keysym

SHIFT_L = XK.XK_Shift_L
RETURN, TAB = XK.string_to_keysym("Return"), XK.string_to_keysym("Tab")
MAX_TEXT = 100_000
CHUNK = 64  # characters sent between syncs with the server


class Keyboard:
    def __init__(self, x, keymap, pool):
        self.x, self.keymap, self.pool = x, keymap, pool
        self.held = []  # keycodes this process pressed and has not released, in press order

    # -- primitives -----------------------------------------------------------------------
    def resolve(self, keysym):
        """(keycode, needs_shift) for a keysym, borrowing a spare keycode when it is not mapped."""
        found = self.keymap.find(keysym)
        if found:
            return found
        return self.pool.keycode_for(keysym), False

    def _down(self, d, kc):
        xtest.fake_input(d, X.KeyPress, kc)
        self.held.append(kc)
        self.pool.mark_pressed(kc)

    def _up(self, d, kc):
        xtest.fake_input(d, X.KeyRelease, kc)
        if kc in self.held:
            self.held.reverse()
            self.held.remove(kc)  # the most recent press of this keycode
            self.held.reverse()

    def _shift_keycode(self):
        return self.keymap.find(SHIFT_L)[0]

    def _chord_keycodes(self, chord):
        """Keycodes to press for one chord, adding Shift for keysyms on the shifted level."""
        has_shift = any(ks in SHIFTS for ks in chord)
        codes = []
        for ks in chord:
            kc, needs_shift = self.resolve(ks)
            if needs_shift and not has_shift:
                codes.append(self._shift_keycode())
                has_shift = True
            codes.append(kc)
        return codes

    # -- operations (chords are lists of keysyms, validated by the caller) ------------------
    def key(self, chords, repeat=1):
        """Each chord in turn, `repeat` times: its keys down in order, then up in reverse."""
        for _ in range(repeat):
            for chord in chords:
                codes = self._chord_keycodes(chord)
                with self.x.checked(f"key {_hex(chord)}") as d:
                    for kc in codes:
                        self._down(d, kc)
                    for kc in reversed(codes):
                        self._up(d, kc)
        self.pool.finish()

    def key_down(self, chords):
        codes = [kc for chord in chords for kc in self._chord_keycodes(chord)]
        with self.x.checked(f"key_down {_hex(*chords)}") as d:
            for kc in codes:
                self._down(d, kc)
                self.pool.pinned[kc] += 1

    def key_up(self, chords):
        codes = [kc for chord in chords for kc in self._chord_keycodes(chord)]
        with self.x.checked(f"key_up {_hex(*chords)}") as d:
            for kc in reversed(codes):
                self._up(d, kc)
                if self.pool.pinned[kc]:
                    self.pool.pinned[kc] -= 1
        self.pool.finish()

    def press_modifiers(self, names):
        """Press modifier keys (ctrl, alt, shift, meta) for a click, drag or scroll; returns
        what to pass to release_modifiers. Every name is checked before any key goes down."""
        codes = [self.resolve(modifier_keysym(name))[0] for name in names]
        with self.x.checked("press modifiers") as d:
            for kc in codes:
                self._down(d, kc)
        return codes

    def release_modifiers(self, codes):
        with self.x.checked("release modifiers") as d:
            for kc in reversed(codes):
                self._up(d, kc)

    def release_all(self):
        if self.held:
            with self.x.checked("release held keys") as d:
                for kc in reversed(list(self.held)):
                    xtest.fake_input(d, X.KeyRelease, kc)
            self.held.clear()
        self.pool.pinned.clear()
        self.pool.finish()

    # -- text -----------------------------------------------------------------------------
    def type_text(self, text):
        keysyms = text_keysyms(text)
        caps = bool(self.x.root.query_pointer().mask & X.LockMask)
        shift_kc = self._shift_keycode()
        missing = [ks for ks, _ in keysyms if not self.keymap.find(ks)]
        if missing:  # bind the first batch up front: one keymap change for many characters
            self.pool.prepare(missing[:len(self.pool.block)])
        done_missing = 0
        for start in range(0, len(keysyms), CHUNK):
            with self.x.checked("type text") as d:
                for ks, ch in keysyms[start:start + CHUNK]:
                    if self.keymap.find(ks):
                        kc, shift = self.keymap.find(ks)
                    else:
                        kc = self.pool.bound_keycode(ks)
                        if kc is None:
                            upcoming = missing[done_missing:]
                            distinct = list(dict.fromkeys(upcoming))[:len(self.pool.block)]
                            d.flush()
                            self.pool.prepare(distinct)
                            kc = self.pool.bound_keycode(ks)
                        shift = False
                        done_missing += 1
                    if caps and ch and ch.lower() != ch.upper() and self.keymap.find(ks):
                        shift = not shift  # Caps Lock inverts the level of letters
                    if shift:
                        xtest.fake_input(d, X.KeyPress, shift_kc)
                    xtest.fake_input(d, X.KeyPress, kc)
                    xtest.fake_input(d, X.KeyRelease, kc)
                    if shift:
                        xtest.fake_input(d, X.KeyRelease, shift_kc)
                    self.pool.mark_pressed(kc)
        self.pool.finish()
        return len(text)


def text_keysyms(text):
    """[(keysym, char)] for text; '\\n', '\\r\\n' and '\\r' type Return, '\\t' types Tab."""
    if not isinstance(text, str):
        raise ValueError("text must be a string")
    if len(text) > MAX_TEXT:
        raise ValueError(f"text is {len(text)} characters; the limit is {MAX_TEXT}")
    out = []
    prev = ""
    for i, ch in enumerate(text):
        cp = ord(ch)
        if ch == "\n":
            if prev != "\r":
                out.append((RETURN, None))
        elif ch == "\r":
            out.append((RETURN, None))
        elif ch == "\t":
            out.append((TAB, None))
        elif cp < 0x20 or 0x7F <= cp < 0xA0:
            raise ValueError(f"text has control character U+{cp:04X} at index {i}; "
                             "only \\n, \\r and \\t are typed")
        elif 0xD800 <= cp < 0xE000:
            raise ValueError(f"text has a lone surrogate U+{cp:04X} at index {i}")
        else:
            out.append((char_keysym(ch), ch))
        prev = ch
    return out


def _hex(*chords):
    return " ".join("+".join(f"0x{ks:x}" for ks in chord) for chord in chords)
