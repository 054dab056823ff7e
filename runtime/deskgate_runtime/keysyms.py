"""Key names (xdotool style plus friendly aliases) to keysyms, and characters to keysyms.

A chord is "mod+mod+key"; a `keys` string may hold several chords separated by spaces
("ctrl+c ctrl+v"). Names are tried in this order: alias table (case-insensitive), exact X
keysym name ("Return", "a", "A", "F13", "XF86AudioMute"), a single character ("ö", "-", "日"),
"U+20AC"/"0x20ac" code points, then a keysym name matched case-insensitively when that match
is unique ("return", "page_up", "kp_enter").
"""
import re

from Xlib import XK

for _group in ("latin2", "latin3", "latin4", "greek", "cyrillic", "publishing", "technical",
               "special", "xf86", "xkb"):
    XK.load_keysym_group(_group)

ALIASES = {
    "ctrl": "Control_L", "control": "Control_L", "lctrl": "Control_L", "rctrl": "Control_R",
    "alt": "Alt_L", "option": "Alt_L", "lalt": "Alt_L", "ralt": "Alt_R", "altgr": "ISO_Level3_Shift",
    "shift": "Shift_L", "lshift": "Shift_L", "rshift": "Shift_R",
    "super": "Super_L", "meta": "Super_L", "cmd": "Super_L", "command": "Super_L",
    "win": "Super_L", "windows": "Super_L", "hyper": "Hyper_L",
    "enter": "Return", "return": "Return", "esc": "Escape", "escape": "Escape",
    "backspace": "BackSpace", "del": "Delete", "delete": "Delete", "ins": "Insert",
    "insert": "Insert", "tab": "Tab", "space": "space", "spacebar": "space",
    "pgup": "Page_Up", "pageup": "Page_Up", "page_up": "Page_Up",
    "pgdn": "Page_Down", "pagedown": "Page_Down", "page_down": "Page_Down",
    "up": "Up", "down": "Down", "left": "Left", "right": "Right",
    "arrowup": "Up", "arrowdown": "Down", "arrowleft": "Left", "arrowright": "Right",
    "home": "Home", "end": "End", "menu": "Menu", "pause": "Pause", "break": "Break",
    "capslock": "Caps_Lock", "caps_lock": "Caps_Lock", "numlock": "Num_Lock",
    "scrolllock": "Scroll_Lock", "print": "Print", "printscreen": "Print", "prtsc": "Print",
    "plus": "plus", "minus": "minus",
}
ALIASES.update({f"f{n}": f"F{n}" for n in range(1, 25)})

MODIFIER_KEYSYMS = {XK.string_to_keysym(n) for n in (
    "Shift_L", "Shift_R", "Control_L", "Control_R", "Alt_L", "Alt_R", "Meta_L", "Meta_R",
    "Super_L", "Super_R", "Hyper_L", "Hyper_R", "ISO_Level3_Shift", "Mode_switch")}


def _case_insensitive_table():
    table, clashes = {}, set()
    for name in dir(XK):
        if name.startswith("XK_"):
            low = name[3:].lower()
            if low in table and table[low] != getattr(XK, name):
                clashes.add(low)
            table[low] = getattr(XK, name)
    return {k: v for k, v in table.items() if k not in clashes}


_BY_LOWER_NAME = _case_insensitive_table()


def char_keysym(ch):
    """The keysym that types `ch`: Latin-1 keysyms equal the code point, others are Unicode keysyms."""
    cp = ord(ch)
    if 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xFF:
        return cp
    return 0x01000000 + cp


def keysym_char(keysym):
    """The character a keysym types, for keysyms that are plain characters; else None."""
    if 0x20 <= keysym <= 0x7E or 0xA0 <= keysym <= 0xFF:
        return chr(keysym)
    if 0x01000100 <= keysym <= 0x0110FFFF:
        return chr(keysym - 0x01000000)
    return None


def name_to_keysym(name):
    """Resolve one key name; raise ValueError if it names no key."""
    if not name:
        raise ValueError("empty key name")
    alias = ALIASES.get(name.lower())
    if alias:
        return XK.string_to_keysym(alias)
    keysym = XK.string_to_keysym(name)
    if not keysym and name.startswith("XF86"):  # python-xlib spells them XF86_AudioMute
        keysym = XK.string_to_keysym("XF86_" + name[4:].lstrip("_"))
    if keysym:
        return keysym
    if len(name) == 1:
        if ord(name) < 0x20 or ord(name) == 0x7F:
            raise ValueError(f"control character U+{ord(name):04X} is not a key name")
        return char_keysym(name)
    low = name.lower()
    if low.startswith(("u+", "0x")) and len(name) > 2:
        try:
            cp = int(name[2:], 16)
        except ValueError:
            cp = -1
        if 0x20 <= cp <= 0x10FFFF:
            return char_keysym(chr(cp))
    if low in _BY_LOWER_NAME:
        return _BY_LOWER_NAME[low]
    raise ValueError(f"unknown key name {name!r}")


def parse_chord(chord):
    """'ctrl+shift+a' -> [Control_L, Shift_L, a]; a trailing '+' key is written 'ctrl++'."""
    chord = re.sub(r"(?i)(?:^|(?<=\+))u\+([0-9a-f]{2,6})(?=\+|$)", r"0x\1", chord)
    if chord == "+":
        parts = ["+"]
    elif chord.endswith("++"):
        parts = chord[:-2].split("+") + ["+"]
    else:
        parts = chord.split("+")
    keysyms = []
    for part in parts:
        try:
            keysyms.append(name_to_keysym(part))
        except ValueError as e:
            raise ValueError(f"{e} in key chord {chord!r}") from None
    return keysyms


def parse_keys(keys):
    """A `keys` string -> list of chords (each a list of keysyms). Validates everything first."""
    if not isinstance(keys, str) or not keys.strip():
        raise ValueError("keys must be a non-empty string like 'ctrl+shift+a'")
    return [parse_chord(chord) for chord in keys.split()]
