"""Keys and text, checked against what the probe app received."""
import time

import pytest

from conftest import chords, keyboard_map, wait_until

CJK = "日本語中文字符漢字測試東京大阪京都北海道沖縄九州四国山川海空雨雪花鳥風月春夏秋冬"


def key_events(probe, since, kind="key"):
    return [e for e in probe.events(since) if e["type"] == kind]


def type_and_check(rt, probe, text, already=""):
    since = probe.mark()
    assert rt.call("type", text=text) == {"typed": len(text)}
    expected = already + text.replace("\r\n", "\n").replace("\r", "\n")
    assert probe.wait_text(expected, since), (probe.text_value(since), expected)
    return expected


def test_type_mixed_unicode_exactly(rt, probe, focused):
    type_and_check(rt, probe, "Hello, wörld — 日本語 ✓")


def test_type_newlines_and_tabs(rt, probe, focused):
    type_and_check(rt, probe, "one\ntwo\tthree\r\nfour")


def test_type_runs_of_non_ascii_repeatedly(rt, probe, focused):
    """More distinct characters than spare keycodes, back to back: exercises rebinding."""
    text = ""
    for i in range(12):
        chunk = CJK[i % 7:] + "MiXeD cAsE " + "ÄöüßéèçñØÅ€✓→≠" + CJK[:i + 3] + f" {i}\n"
        text = type_and_check(rt, probe, chunk, text)


def test_type_same_char_many_times(rt, probe, focused):
    type_and_check(rt, probe, "本" * 200 + "語本" * 50)


def test_type_rejects_control_characters_and_huge_text(rt, probe, focused):
    since = probe.mark()
    assert rt.error("type", text="a\x07b")["kind"] == "bad_args"
    err = rt.error("type", text="x" * 100_001)
    assert err["kind"] == "bad_args" and "100000" in err["message"]
    time.sleep(0.3)
    assert not key_events(probe, since)


def test_key_ctrl_a_selects_all(rt, probe, focused):
    type_and_check(rt, probe, "select me\nall of me")
    since = probe.mark()
    rt.call("key", chords=chords("ctrl+a"))
    ev = probe.wait_for(lambda e: e["type"] == "select_all", since)
    assert ev and ev["selection"] == "select me\nall of me"


def test_key_chords_and_repeat(rt, probe, focused):
    type_and_check(rt, probe, "abc")
    since = probe.mark()
    rt.call("key", chords=chords("BackSpace"), repeat=2)
    assert probe.wait_text("a", since)
    since = probe.mark()
    rt.call("key", chords=chords("shift+b"))
    rt.call("key", chords=chords("Return"))
    rt.call("key", chords=[[ord("A")]])   # shifted keysym: Shift is added
    rt.call("key", chords=chords("comma"))
    rt.call("key", chords=[[0xF6]])        # ö, not on the US map: a borrowed keycode
    rt.call("key", chords=[[0x01000000 + ord("日")]])  # a Unicode keysym
    rt.call("key", chords=chords("space Left Right"))
    assert probe.wait_text("aB\nA,ö日 ", since), probe.text_value(since)


@pytest.mark.parametrize("params", [
    {"chords": []},
    {"chords": [[]]},
    {"chords": "ctrl+a"},
    {"chords": [["ctrl", "a"]]},
    {"chords": [[97.0]]},
    {"chords": [[True]]},
    {"chords": [[0]]},
    {"chords": [[0x20000000]]},
    {"chords": [[0x61] * 9]},
    {"chords": [[0x61]] * 33},
    {"chords": [[0x61]], "repeat": 0},
    {"chords": [[0x61]], "repeat": 101},
    {"keys": "a"},
    {},
])
def test_bad_chords_send_nothing(rt, probe, focused, params):
    since = probe.mark()
    for op in ("key", "key_down", "key_up"):
        if op != "key" and "repeat" in params:
            continue
        assert rt.error(op, **params)["kind"] == "bad_args", (op, params)
    rt.call("ping")
    time.sleep(0.1)
    assert not key_events(probe, since)


def test_largest_chord_lists_are_accepted(rt, probe, focused):
    since = probe.mark()
    rt.call("key", chords=[[0xFFE1] * 7 + [ord("x")]] + [[0xFFE1, ord("y")]] * 31)
    assert probe.wait_text("X" + "Y" * 31, since), probe.text_value(since)


def test_key_modifiers_reach_the_app(rt, probe, focused):
    since = probe.mark()
    rt.call("key", chords=chords("ctrl+alt+Home"))  # not F-keys: XKB turns ctrl+alt+F5 into a VT switch
    ev = probe.wait_for(lambda e: e["type"] == "key" and e["keysym"] == "Home", since)
    assert ev["state"] & 4 and ev["state"] & 8


def test_key_down_and_up(rt, probe, focused):
    since = probe.mark()
    rt.call("key_down", chords=chords("shift"))
    rt.call("key", chords=chords("x"))
    rt.call("key_up", chords=chords("shift"))
    rt.call("key", chords=chords("x"))
    assert probe.wait_text("Xx", since), probe.text_value(since)


def test_hold_key_is_the_executors_job(rt):
    """key_down, a wait and key_up make a hold (the worker's executor); no op sleeps here."""
    assert rt.error("hold_key", chords=[[0xFFE1]], duration=0.1)["kind"] == "bad_args"


def test_key_down_and_up_of_several_chords(rt, probe, focused):
    since = probe.mark()
    rt.call("key_down", chords=chords("ctrl shift"))
    rt.call("key_up", chords=chords("ctrl shift"))
    def modifier_releases():
        return [e["keysym"] for e in key_events(probe, since, "key_release")
                if e["keysym"] in ("Control_L", "Shift_L")]
    # Both releases recorded (the probe app records them one by one: under load the second may
    # come in after the first is read), then their order.
    wait_until(lambda: len(modifier_releases()) >= 2)
    assert modifier_releases() == ["Shift_L", "Control_L"]  # up in reverse order


def test_release_all_releases_held_keys(rt, probe, focused):
    since = probe.mark()
    rt.call("key_down", chords=chords("ctrl"))
    rt.call("release_all")
    assert probe.wait_for(lambda e: e["type"] == "key_release" and e["keysym"] == "Control_L",
                          since)
    rt.call("key", chords=chords("y"))
    assert probe.wait_text("y", since)


def test_spare_keycodes_are_restored(rt, probe, focused, desktop):
    time.sleep(1.0)  # borrowed keycodes from earlier tests are returned after 0.5 s idle
    before = keyboard_map(desktop.display)
    type_and_check(rt, probe, "日本語✓" + CJK)
    assert keyboard_map(desktop.display) != before  # borrowed while typing...
    assert wait_until(lambda: keyboard_map(desktop.display) == before, 3)  # ...then returned
