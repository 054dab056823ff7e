"""Keysyms without an X server: typed text, modifier names, chord parameters."""
import pytest
from Xlib import XK

from deskgate_runtime.keyboard import text_keysyms
from deskgate_runtime.keysyms import char_keysym, modifier_keysym
from deskgate_runtime.protocol import Params


def ks(name):
    return XK.string_to_keysym(name)


def test_characters_to_keysyms():
    assert char_keysym("a") == ord("a")
    assert char_keysym("ö") == 0xF6
    assert char_keysym("日") == 0x01000000 + ord("日")
    assert char_keysym("€") == 0x01000000 + 0x20AC


def test_text_to_keysyms():
    got = text_keysyms("a\r\nb\tc\rd")
    assert [k for k, _ in got] == [ord("a"), ks("Return"), ord("b"), ks("Tab"), ord("c"),
                                    ks("Return"), ord("d")]
    with pytest.raises(ValueError, match="U\\+0007"):
        text_keysyms("x\x07")
    with pytest.raises(ValueError, match="100000"):
        text_keysyms("x" * 100_001)


def test_only_the_four_modifier_names():
    assert [modifier_keysym(n) for n in ("ctrl", "alt", "shift", "meta")] == [
        ks("Control_L"), ks("Alt_L"), ks("Shift_L"), ks("Super_L")]
    for bad in ("Ctrl", "control", "super", "cmd", "altgr", "Shift_L", "", "ctrl+shift", 1):
        with pytest.raises(ValueError):
            modifier_keysym(bad)


def chords_param(value):
    return Params("key", {"chords": value}).int_lists("chords", 1, 0x1FFFFFFF, 32, 8)


def test_chord_parameters():
    assert chords_param([[0xFFE3, 0x61], [0xFF0D]]) == [[0xFFE3, 0x61], [0xFF0D]]
    assert chords_param([[0x1FFFFFFF] * 8] * 32) == [[0x1FFFFFFF] * 8] * 32
    for bad in ([], [[]], [[0]], [[0x20000000]], [[1] * 9], [[1]] * 33, [["a"]], [[1.0]],
                [[True]], [1], "ctrl+a", {"a": 1}):
        with pytest.raises(ValueError):
            chords_param(bad)
