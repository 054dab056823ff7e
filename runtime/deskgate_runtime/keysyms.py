"""Keysyms: the characters of typed text, and the modifier names clicks and scrolls accept.

Key chords arrive as keysym numbers: the core parses key names (one parser, in one place),
so nothing here reads a key name except the four modifier names of pointer actions.
"""
from Xlib import XK

MAX_KEYSYM = 0x1FFFFFFF  # keysyms are 29-bit values
MAX_CHORD_KEYS = 8
MAX_CHORDS = 32

# The modifiers a click, drag or scroll may hold, exactly as named (ctrl, not Control).
MODIFIERS = {"ctrl": XK.XK_Control_L, "alt": XK.XK_Alt_L, "shift": XK.XK_Shift_L,
             "meta": XK.XK_Super_L}
SHIFTS = frozenset((XK.XK_Shift_L, XK.XK_Shift_R))


def modifier_keysym(name):
    keysym = MODIFIERS.get(name) if isinstance(name, str) else None
    if keysym is None:
        raise ValueError(f"modifier {name!r} is not one of {', '.join(MODIFIERS)}")
    return keysym


def char_keysym(ch):
    """The keysym that types `ch`: Latin-1 keysyms equal the code point, others are Unicode keysyms."""
    cp = ord(ch)
    if 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xFF:
        return cp
    return 0x01000000 + cp
