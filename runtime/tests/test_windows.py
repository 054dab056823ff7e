"""Windows through EWMH: frontmost app, hit-testing, the stacking list, iconify/activate."""
import os

from conftest import PROBE_CLASS, Probe, wait_until


def assert_is_probe(info, probe):
    assert info["wm_class"] == ["deskgateProbe", PROBE_CLASS]
    assert info["pid"] == probe.proc.pid
    assert info["title"] == "deskgate probe"
    assert info["exe"] and os.path.basename(info["exe"]).startswith("python3")


def test_frontmost_app_is_the_probe(rt, probe, focused):
    info = rt.call("frontmost_app")
    assert info["window"] == focused["id"]
    assert_is_probe(info, probe)


def test_window_at_point(rt, probe, focused):
    x, y = probe.center("color_area")
    info = rt.call("window_at", x=x, y=y)
    assert info["window"] == focused["id"]
    assert_is_probe(info, probe)
    nothing = rt.call("window_at", x=1270, y=790)  # the probe covers 800x600 at the origin
    assert nothing == {"window": None, "title": None, "wm_class": None, "pid": None, "exe": None}


def test_list_windows_geometry(rt, probe, focused):
    wins = rt.call("list_windows")["windows"]
    mine = [w for w in wins if w["id"] == focused["id"]]
    assert len(mine) == 1
    w = mine[0]
    assert_is_probe(w, probe)
    ready = probe.ready["window"]
    assert (w["x"], w["y"], w["width"], w["height"]) == (
        ready["x"], ready["y"], ready["width"], ready["height"])
    assert w["mapped"] is True


def test_stacking_order_and_activate(rt, probe, focused, desktop):
    other = Probe(desktop, name="probe2", title="second probe", geometry="300x200+600+500",
                  color="#cc3333", **{"class": "SecondProbe"})
    try:
        wins = wait_until(lambda: [w for w in rt.call("list_windows")["windows"]
                                   if w["wm_class"] and w["wm_class"][1] == "SecondProbe"])
        second = wins[0]
        assert rt.call("list_windows")["windows"][-1]["id"] == second["id"]  # top of the stack
        assert wait_until(lambda: rt.call("frontmost_app")["window"] == second["id"])
        rt.call("activate", window=focused["id"])
        assert rt.call("frontmost_app")["window"] == focused["id"]
        assert rt.call("list_windows")["windows"][-1]["id"] == focused["id"]
        rt.call("iconify", window=second["id"])
        listed = {w["id"]: w for w in rt.call("list_windows")["windows"]}
        assert listed[second["id"]]["mapped"] is False
        rt.call("activate", window=second["id"])
        assert wait_until(lambda: {w["id"]: w for w in rt.call("list_windows")["windows"]}
                          [second["id"]]["mapped"])
    finally:
        other.proc.terminate()
        other.proc.wait(5)
    assert other.events()[-1]["type"] == "exit"
    rt.call("activate", window=focused["id"])


def test_iconify_and_activate_probe(rt, probe, focused):
    rt.call("iconify", window=focused["id"])
    assert rt.call("window_at", x=400, y=400)["window"] is None
    rt.call("activate", window=focused["id"])
    assert wait_until(lambda: rt.call("window_at", x=400, y=400)["window"] == focused["id"])


def test_unknown_window_is_not_found(rt):
    assert rt.error("activate", window=0x7ffffff)["kind"] == "not_found"
    assert rt.error("iconify", window=0x7ffffff)["kind"] == "not_found"
