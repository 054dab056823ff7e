"""Key-name parsing, without an X server."""
import pytest
from Xlib import XK

from deskgate_runtime import keys
from deskgate_runtime.keyboard import text_keysyms


def ks(name):
    return XK.string_to_keysym(name)


@pytest.mark.parametrize("name,expected", [
    ("ctrl", "Control_L"), ("Control", "Control_L"), ("alt", "Alt_L"), ("option", "Alt_L"),
    ("shift", "Shift_L"), ("super", "Super_L"), ("meta", "Super_L"), ("cmd", "Super_L"),
    ("command", "Super_L"), ("win", "Super_L"), ("enter", "Return"), ("Return", "Return"),
    ("esc", "Escape"), ("backspace", "BackSpace"), ("del", "Delete"), ("pgup", "Page_Up"),
    ("pgdn", "Page_Down"), ("up", "Up"), ("Left", "Left"), ("F1", "F1"), ("f24", "F24"),
    ("space", "space"), ("comma", "comma"), ("a", "a"), ("A", "A"), ("1", "1"),
    ("kp_enter", "KP_Enter"), ("Page_Up", "Page_Up"),
])
def test_names_and_aliases(name, expected):
    assert keys.name_to_keysym(name) == ks(expected)


def test_characters_code_points_and_xf86():
    assert keys.name_to_keysym("ö") == 0xF6
    assert keys.name_to_keysym("日") == 0x01000000 + ord("日")
    assert keys.parse_keys("U+20AC") == [[0x01000000 + 0x20AC]]
    assert keys.name_to_keysym("XF86AudioMute") == 0x1008FF12


def test_chords_and_sequences():
    assert keys.parse_keys("ctrl+shift+a") == [[ks("Control_L"), ks("Shift_L"), ks("a")]]
    assert keys.parse_keys("ctrl++") == [[ks("Control_L"), ks("plus")]]
    assert keys.parse_keys("ctrl+c ctrl+v") == [[ks("Control_L"), ks("c")],
                                                 [ks("Control_L"), ks("v")]]


@pytest.mark.parametrize("bad", ["", "   ", "ctrl+Foo", "ctrl+", "Nope", "ctrl+c ctrl+Bogus"])
def test_unknown_names_are_value_errors(bad):
    with pytest.raises(ValueError):
        keys.parse_keys(bad)


def test_error_names_the_key():
    with pytest.raises(ValueError, match="'Foo'"):
        keys.parse_keys("ctrl+shift+Foo")


def test_text_to_keysyms():
    got = text_keysyms("a\r\nb\tc\rd")
    assert [k for k, _ in got] == [ord("a"), ks("Return"), ord("b"), ks("Tab"), ord("c"),
                                    ks("Return"), ord("d")]
    with pytest.raises(ValueError, match="U\\+0007"):
        text_keysyms("x\x07")
    with pytest.raises(ValueError, match="100000"):
        text_keysyms("x" * 100_001)
