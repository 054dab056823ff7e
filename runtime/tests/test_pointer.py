"""Mouse input, checked against what the probe app received."""
from conftest import wait_until

SHIFT, CTRL = 1, 4


def presses(probe, since, kind="press"):
    return [e for e in probe.events(since) if e["type"] == kind]


def test_click_lands_at_root_coordinates(rt, probe, focused):
    x, y = probe.center("color_area")
    since = probe.mark()
    rt.call("click", x=x, y=y, button="left", count=1)
    release = probe.wait_for(lambda e: e["type"] == "release", since)
    assert release and (release["x_root"], release["y_root"], release["button"]) == (x, y, 1)
    press = presses(probe, since)
    assert [(e["x_root"], e["y_root"], e["button"]) for e in press] == [(x, y, 1)]


def test_right_and_middle_buttons(rt, probe, focused):
    x, y = probe.center("color_area")
    since = probe.mark()
    rt.call("click", x=x, y=y + 10, button="right")
    rt.call("click", x=x, y=y + 20, button="middle")
    assert wait_until(lambda: len(presses(probe, since, "release")) == 2)
    assert [(e["button"], e["y_root"]) for e in presses(probe, since)] == [(3, y + 10), (2, y + 20)]


def test_double_and_triple_click_counts(rt, probe, focused):
    x, y = probe.center("color_area")
    for count in (2, 3):
        since = probe.mark()
        rt.call("click", x=x, y=y, button="left", count=count)
        assert wait_until(lambda: len(presses(probe, since, "release")) == count)
        assert len(presses(probe, since)) == count


def test_click_activates_button_widget(rt, probe, focused):
    since = probe.mark()
    x, y = probe.center("button")
    rt.call("click", x=x, y=y, button="left")
    assert probe.wait_for(lambda e: e["type"] == "button" and e["name"] == "click_me", since)


def test_click_modifiers_arrive_and_are_released(rt, probe, focused):
    x, y = probe.center("color_area")
    since = probe.mark()
    rt.call("click", x=x, y=y, button="left", modifiers=["ctrl", "shift"])
    press = probe.wait_for(lambda e: e["type"] == "press", since)
    assert press["state"] & CTRL and press["state"] & SHIFT
    assert wait_until(lambda: {"Control_L", "Shift_L"} <= {
        e["keysym"] for e in probe.events(since) if e["type"] == "key_release"})
    since = probe.mark()
    rt.call("click", x=x, y=y, button="left")
    assert probe.wait_for(lambda e: e["type"] == "press", since)["state"] & (CTRL | SHIFT) == 0


def test_scroll_buttons_and_counts(rt, probe, focused):
    x, y = probe.center("color_area")
    for direction, amount, button, shifted in (("up", 3, 4, False), ("down", 2, 5, False),
                                               ("left", 4, 4, True), ("right", 1, 5, True)):
        since = probe.mark()
        rt.call("scroll", x=x, y=y, direction=direction, amount=amount)
        assert wait_until(lambda: len(presses(probe, since, "release")) == amount), direction
        got = presses(probe, since)
        # Tk 8.6 reports X buttons 6/7 (horizontal) as Shift + 4/5; no Shift key is pressed.
        assert [(e["button"], bool(e["state"] & SHIFT)) for e in got] == [(button, shifted)] * amount
        assert all((e["x_root"], e["y_root"]) == (x, y) for e in got)
        assert not [e for e in probe.events(since) if e["type"] == "key"]


def test_scroll_zero_only_moves(rt, probe, focused):
    x, y = probe.center("color_area")
    since = probe.mark()
    rt.call("scroll", x=x + 5, y=y, direction="down", amount=0)
    assert rt.call("cursor_position") == {"x": x + 5, "y": y}
    assert not presses(probe, since)


def test_drag_press_motion_release(rt, probe, focused):
    box = probe.ready["color_area"]
    start = [box["x"] + 50, box["y"] + 50]
    end = [box["x"] + 400, box["y"] + 250]
    since = probe.mark()
    rt.call("drag", **{"from": start, "to": end})
    assert probe.wait_for(lambda e: e["type"] == "release", since)
    evs = [e for e in probe.events(since) if e["type"] in ("press", "motion_drag", "release")]
    assert evs[0]["type"] == "press" and [evs[0]["x_root"], evs[0]["y_root"]] == start
    assert evs[-1]["type"] == "release" and [evs[-1]["x_root"], evs[-1]["y_root"]] == end
    motions = [e for e in evs if e["type"] == "motion_drag"]
    assert motions and [motions[-1]["x_root"], motions[-1]["y_root"]] == end


def test_drag_from_current_pointer(rt, probe, focused):
    box = probe.ready["color_area"]
    rt.call("move", x=box["x"] + 20, y=box["y"] + 20)
    since = probe.mark()
    rt.call("drag", **{"from": None, "to": [box["x"] + 120, box["y"] + 60]})
    assert probe.wait_for(lambda e: e["type"] == "release", since)
    press = presses(probe, since)[0]
    assert (press["x_root"], press["y_root"]) == (box["x"] + 20, box["y"] + 20)


def test_mouse_down_then_up_elsewhere(rt, probe, focused):
    box = probe.ready["color_area"]
    since = probe.mark()
    rt.call("mouse_down", button="left", x=box["x"] + 30, y=box["y"] + 30)
    assert rt.error("mouse_down", button="left")["kind"] == "bad_args"
    rt.call("move", x=box["x"] + 90, y=box["y"] + 70)
    rt.call("mouse_up", button="left", x=box["x"] + 100, y=box["y"] + 80)
    assert probe.wait_for(lambda e: e["type"] == "release", since)
    evs = [e for e in probe.events(since) if e["type"] in ("press", "release")]
    assert [(e["type"], e["x_root"] - box["x"], e["y_root"] - box["y"]) for e in evs] == [
        ("press", 30, 30), ("release", 100, 80)]
    assert probe.wait_for(lambda e: e["type"] == "motion_drag", since)


def test_cursor_position_after_move(rt):
    rt.call("move", x=123, y=456)
    assert rt.call("cursor_position") == {"x": 123, "y": 456}
    rt.call("move", x=0, y=799)
    assert rt.call("cursor_position") == {"x": 0, "y": 799}


def test_release_all_releases_held_button(rt, probe, focused):
    x, y = probe.center("color_area")
    since = probe.mark()
    rt.call("mouse_down", button="right", x=x, y=y)
    rt.call("release_all")
    release = probe.wait_for(lambda e: e["type"] == "release", since)
    assert release and release["button"] == 3
