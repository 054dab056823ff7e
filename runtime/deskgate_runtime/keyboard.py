"""Key chords (as keysyms), held keys and text typing through XTest."""
from Xlib import X, XK
from Xlib.ext import xtest

from .errors import GuardFailed
from .keysyms import SHIFTS, char_keysym, modifier_keysym

SHIFT_L = XK.XK_Shift_L
RETURN, TAB = XK.string_to_keysym("Return"), XK.string_to_keysym("Tab")
MAX_TEXT = 100_000
CHUNK = 64  # characters (or chords) sent between syncs with the server; one guard check each


class Keyboard:
    """Keys and text. With an input guard (guard.py), events go out under the guard's server
    grab; everything that may wait for another client (binding borrowed keycodes, which waits
    for the focused client to fetch the keymap) is done before the grab, never inside it."""

    def __init__(self, x, keymap, pool, guards):
        self.x, self.keymap, self.pool, self.guards = x, keymap, pool, guards
        self.held = []  # keycodes this process pressed and has not released, in press order

    # -- primitives -----------------------------------------------------------------------
    def resolve(self, keysym):
        """(keycode, needs_shift) for a keysym, borrowing a spare keycode when it is not mapped."""
        found = self.keymap.find(keysym)
        if found:
            return found
        return self.pool.keycode_for(keysym), False

    def _resolvable(self, keysyms):
        """True when every keysym has a keycode already (no keymap write needed)."""
        return all(self.keymap.find(ks) or self.pool.bound_keycode(ks) is not None
                   for ks in keysyms)

    def _bind_ahead(self, keysyms):
        """Bind the missing keysyms (as many as the block holds) in one keymap write."""
        missing = [ks for ks in dict.fromkeys(keysyms) if not self.keymap.find(ks)]
        if missing and not self._resolvable(missing):
            self.pool.prepare(missing[:len(self.pool.block)])

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
    def key(self, chords, repeat=1, guard=None):
        """Each chord in turn, `repeat` times: its keys down in order, then up in reverse.
        Sent in batches of up to CHUNK chords, each under the guard (if any)."""
        sequence = [chord for _ in range(repeat) for chord in chords]
        self._bind_ahead(ks for chord in sequence for ks in chord)
        batch, sent = [], 0

        def send():
            nonlocal sent
            what = f"key {_hex(*(chord for chord, _ in batch))}"
            with self.guards.hold(guard, "key"), self.x.checked(what) as d:
                for _, codes in batch:
                    for kc in codes:
                        self._down(d, kc)
                    for kc in reversed(codes):
                        self._up(d, kc)
            sent += len(batch)
            batch.clear()
        try:
            for chord in sequence:
                # Send what is batched before binding more keycodes: a rebind could reuse one.
                if batch and (len(batch) >= CHUNK or not self._resolvable(chord)):
                    send()
                batch.append((chord, self._chord_keycodes(chord)))
            send()
        except GuardFailed as e:
            if sent:
                raise GuardFailed(e.reason, f"{sent} of {len(sequence)} chords were pressed, "
                                  "the rest were not") from None
            raise
        finally:
            self.pool.finish()

    def key_down(self, chords, guard=None):
        codes = [kc for chord in chords for kc in self._chord_keycodes(chord)]
        with self.guards.hold(guard, "key_down"), \
                self.x.checked(f"key_down {_hex(*chords)}") as d:
            for kc in codes:
                self._down(d, kc)
                self.pool.pinned[kc] += 1

    def key_up(self, chords):
        """Never guarded: releasing keys is always safe."""
        codes = [kc for chord in chords for kc in self._chord_keycodes(chord)]
        with self.x.checked(f"key_up {_hex(*chords)}") as d:
            for kc in reversed(codes):
                self._up(d, kc)
                if self.pool.pinned[kc]:
                    self.pool.pinned[kc] -= 1
        self.pool.finish()

    def modifier_keycodes(self, names):
        """Keycodes of modifier keys (ctrl, alt, shift, meta), resolved before any goes down."""
        return [self.resolve(modifier_keysym(name))[0] for name in names]

    def press(self, codes):
        """Press keys (a pointer action's modifiers); returns what release_modifiers takes."""
        with self.x.checked("press modifiers") as d:
            for kc in codes:
                self._down(d, kc)
        return codes

    def release_modifiers(self, codes):
        if not codes:
            return
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
    def type_text(self, text, guard=None):
        """Type `text`, in chunks of up to CHUNK keys. Before each chunk (outside any grab) the
        characters it needs are bound to borrowed keycodes; then the chunk goes out under the
        guard. A guard failing on a later chunk reports how much was typed."""
        keysyms = text_keysyms(text)
        starts = _keysym_starts(text)
        caps = bool(self.x.root.query_pointer().mask & X.LockMask)
        shift_kc = self._shift_keycode()
        missing = [i for i, (ks, _) in enumerate(keysyms) if not self.keymap.find(ks)]
        i = m = 0  # next keysym to send; first entry of `missing` at or after it
        try:
            while i < len(keysyms):
                while m < len(missing) and missing[m] < i:
                    m += 1
                if not self._resolvable(ks for ks, _ in keysyms[i:i + CHUNK]):
                    self.pool.prepare(self._upcoming(keysyms, missing[m:]))
                presses = self._presses(keysyms[i:i + CHUNK], caps)
                if not presses:  # the keymap changed under us: bind this one on its own
                    presses = [(self.pool.keycode_for(keysyms[i][0]), False)]
                self._send_text(presses, shift_kc, guard)
                i += len(presses)
        except GuardFailed as e:
            if i:
                raise GuardFailed(e.reason, f"{starts[i]} of {len(text)} characters were typed, "
                                  "the rest was not", typed=starts[i]) from None
            raise
        finally:
            self.pool.finish()
        return len(text)

    def _upcoming(self, keysyms, missing):
        """The distinct missing keysyms in order of use, as many as the block holds (the ones
        already bound among them keep their keycodes)."""
        upcoming = {}
        for j in missing:
            upcoming.setdefault(keysyms[j][0])
            if len(upcoming) >= len(self.pool.block):
                break
        return list(upcoming)

    def _presses(self, keysyms, caps):
        """[(keycode, shift)] for the leading keysyms that have a keycode now."""
        presses = []
        for ks, ch in keysyms:
            found = self.keymap.find(ks)
            if found:
                kc, shift = found
                if caps and ch and ch.lower() != ch.upper():
                    shift = not shift  # Caps Lock inverts the level of letters
            else:
                kc, shift = self.pool.bound_keycode(ks), False
                if kc is None:
                    break
            presses.append((kc, shift))
        return presses

    def _send_text(self, presses, shift_kc, guard):
        with self.guards.hold(guard, "type"), self.x.checked("type text") as d:
            for kc, shift in presses:
                if shift:
                    xtest.fake_input(d, X.KeyPress, shift_kc)
                xtest.fake_input(d, X.KeyPress, kc)
                xtest.fake_input(d, X.KeyRelease, kc)
                if shift:
                    xtest.fake_input(d, X.KeyRelease, shift_kc)
                self.pool.mark_pressed(kc)


def _keysym_starts(text):
    """Where each of text_keysyms(text) begins in `text` ('\r\n' is one keysym)."""
    return [i for i, ch in enumerate(text) if not (ch == "\n" and i and text[i - 1] == "\r")]


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
