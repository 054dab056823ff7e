"""gate_facts: what the X server has at a point and holding the focus, as the gates judge it.
Under openbox with the probe app, and on a bare server where the test plays the window manager."""
import os

import pytest
from Xlib import X, display as xdisplay
from Xlib.ext import shape

from conftest import (PROBE_CLASS, Desktop, RuntimeProcess, chords, make_window, set_stacking,
                      wait_until)

BACKGROUND = (1270, 790)  # the probe covers 800x600 at the origin; nothing else is there


def probe_window(rt):
    return next(w for w in rt.call("list_windows")["windows"]
                if w["wm_class"] and w["wm_class"][1] == PROBE_CLASS)


def app_of(window):
    return {k: window[k] for k in ("title", "wm_class", "pid", "exe")} | {"window": window["id"]}


def facts(rt, *points):
    return rt.call("gate_facts", points=[list(p) for p in points])


@pytest.fixture
def xconn(desktop):
    d = xdisplay.Display(desktop.display)
    yield d
    d.close()


# -- under openbox -----------------------------------------------------------------------
def test_background_client_and_title_bar(rt, probe, focused):
    win = probe_window(rt)
    client = surface_of("client", win)
    title_bar = (win["x"] + win["width"] // 2, win["y"] - 8)
    got = facts(rt, BACKGROUND, probe.center("color_area"), title_bar, probe.center("text"))
    root = got["at"][0]
    assert root["kind"] == "root" and root["app"] is None and root["window"]
    assert got["at"][1:] == [client, surface_of("decoration", win), client]
    assert got["focus"] == client  # the probe's Text widget has the keyboard
    assert got["windows"] == rt.call("list_windows")["windows"]
    assert facts(rt)["at"] == []


def surface_of(kind, win):
    return {"kind": kind, "window": win["id"], "app": app_of(win)}


def test_under_pointer_cursor_and_held_buttons(rt, probe, focused):
    rt.call("move", x=BACKGROUND[0], y=BACKGROUND[1])
    got = facts(rt)
    assert got["cursor"] == {"x": BACKGROUND[0], "y": BACKGROUND[1]}
    assert got["under_pointer"]["kind"] == "root" and got["buttons"] == []
    x, y = probe.center("color_area")
    rt.call("mouse_down", button="left", x=x, y=y)
    try:
        got = facts(rt)
        assert got["under_pointer"] == surface_of("client", probe_window(rt))
        assert got["cursor"] == {"x": x, "y": y} and got["buttons"] == ["left"]
    finally:
        rt.call("mouse_up", button="left")
    assert facts(rt)["buttons"] == []


def test_a_point_where_the_pointer_rests_and_where_it_rested_before_someone_moved_it(
        rt, probe, focused, xconn):
    """A point where the pointer rests is answered from the pointer query (no request of its
    own): the same surfaces as anywhere else. When another client moved the pointer since the
    runtime last saw it, the point it rested on is read after all, not taken from the query."""
    win = probe_window(rt)
    title_bar = (win["x"] + win["width"] // 2, win["y"] - 8)
    center = probe.center("color_area")
    expected = {BACKGROUND: "root", center: "client", title_bar: "decoration"}
    for point, kind in expected.items():
        rt.call("move", x=point[0], y=point[1])
        got = facts(rt, point, BACKGROUND)
        assert got["cursor"] == {"x": point[0], "y": point[1]}
        assert got["at"][0] == got["under_pointer"] and got["at"][0]["kind"] == kind
        assert got["at"][1]["kind"] == "root"
    # The runtime last saw the pointer on the title bar; another client moves it to the probe.
    xconn.screen().root.warp_pointer(*center)
    xconn.sync()
    got = facts(rt, title_bar, center)
    assert got["cursor"] == {"x": center[0], "y": center[1]}
    assert [s["kind"] for s in got["at"]] == ["decoration", "client"]
    assert got["under_pointer"]["kind"] == "client"


def test_popup_counts_as_the_app_of_its_process(rt, xconn):
    """Override-redirect windows (menus, dropdowns) of a process with one app's windows are
    that app; of a process with none, or with several apps, they are only themselves."""
    d, root = xconn, xconn.screen().root
    main = make_window(d, root, 880, 40, 300, 150, "surface main", ("surfMain", "SurfaceTest"))
    menu = make_window(d, root, 900, 400, 120, 100, override_redirect=True)
    named = make_window(d, root, 1100, 400, 120, 100, wm_class=("menu", "Menu"),
                        override_redirect=True)
    other = None
    try:
        main.map()
        menu.map()
        named.map()
        d.sync()
        listed = wait_until(lambda: next((w for w in rt.call("list_windows")["windows"]
                                          if w["id"] == main.id), None))
        assert listed and listed["pid"] == os.getpid()
        at = facts(rt, (950, 450), (1150, 450))["at"]
        assert at == [{"kind": "popup", "window": menu.id, "app": app_of(listed)},
                      {"kind": "popup", "window": named.id, "app": app_of(listed)}]
        # A second app in the same process: a popup without WM_CLASS could be either's.
        other = make_window(d, root, 880, 220, 200, 100, "surface other", ("surfOther", "Other"))
        other.map()
        d.sync()
        assert wait_until(lambda: any(w["id"] == other.id
                                      for w in rt.call("list_windows")["windows"]))
        (alone,) = facts(rt, (950, 450))["at"]
        assert alone["kind"] == "popup" and alone["window"] == menu.id
        assert alone["app"]["window"] == menu.id and alone["app"]["wm_class"] is None
        assert alone["app"]["pid"] == os.getpid()
        assert alone["app"]["exe"] and os.path.basename(alone["app"]["exe"]).startswith("python")
        named.set_wm_class("surfOther", "Other")
        d.sync()
        (theirs,) = facts(rt, (1150, 450))["at"]
        assert theirs["app"]["window"] == other.id
    finally:
        for w in (main, menu, named, other):
            if w is not None:
                w.destroy()
        d.sync()


def test_window_manager_menu_on_the_background_is_not_an_app(rt, probe, focused):
    """The way in of the root-shell attack: a right-click on the desktop opens openbox's root
    menu. Its window is neither the background nor any app's."""
    rt.call("click", x=1000, y=300, button="right")
    try:
        menu = wait_until(lambda: (lambda s: s if s["kind"] != "root" else None)(
            facts(rt, (1010, 310))["at"][0]))
        assert menu and menu["kind"] == "unknown" and menu["app"] is None
    finally:
        rt.call("key", chords=chords("Escape"))
    assert wait_until(lambda: facts(rt, (1010, 310))["at"][0]["kind"] == "root")


def test_activate_leaves_the_focus_on_the_client(rt, probe, focused, xconn):
    d = xconn
    other = make_window(d, d.screen().root, 900, 100, 200, 150, "focus target",
                        ("focusTarget", "FocusTarget"))
    try:
        other.map()
        d.sync()
        assert wait_until(lambda: any(w["id"] == other.id
                                      for w in rt.call("list_windows")["windows"]))
        for wid in (other.id, focused["id"], other.id):
            rt.call("activate", window=wid)  # no waiting here: activate returns when it holds
            focus = facts(rt)["focus"]
            assert (focus["kind"], focus["window"]) == ("client", wid)
            assert d.get_input_focus().focus.id == wid
    finally:
        other.destroy()
        d.sync()
        rt.call("activate", window=focused["id"])


# -- without a window manager (the test plays one where it needs frames) ---------------------
@pytest.fixture
def bare_x(bare):
    desk, rt = bare
    d = xdisplay.Display(desk.display)
    root = d.screen().root
    root.delete_property(d.intern_atom("_NET_CLIENT_LIST_STACKING"))
    made = []

    def window(*args, **kw):
        win = make_window(d, *args, **kw)
        made.append(win)
        return win
    yield d, root, rt, window
    for win in reversed(made):
        try:
            win.destroy()
        except Exception:
            pass
    root.delete_property(d.intern_atom("_NET_CLIENT_LIST_STACKING"))
    root.set_input_focus(X.PointerRoot, X.RevertToPointerRoot, X.CurrentTime)
    d.sync()
    d.close()


def test_without_a_window_manager(bare_x):
    d, root, rt, window = bare_x
    client = window(root, 100, 100, 300, 200, "bare client", ("bareClient", "Bare"))
    child = window(client, 10, 10, 50, 50)
    unclassed = window(root, 500, 100, 100, 100, "no class")
    popup = window(root, 700, 100, 100, 100, wm_class=("pop", "Popup"), override_redirect=True)
    for w in (client, child, unclassed, popup):
        w.map()
    d.sync()
    info = wait_until(lambda: next((w for w in rt.call("list_windows")["windows"]
                                    if w["id"] == client.id), None))
    assert [w["id"] for w in rt.call("list_windows")["windows"]] == [client.id]
    mine = {"kind": "client", "window": client.id, "app": app_of(info)}
    got = facts(rt, (250, 200), (120, 120), (550, 150), (750, 150), (50, 50))
    assert got["at"][:2] == [mine, mine]  # the client, and a window inside it
    assert got["at"][2] == {"kind": "unknown", "window": unclassed.id, "app": None}
    assert got["at"][3] == {"kind": "popup", "window": popup.id, "app": app_of(info)}
    assert got["at"][4]["kind"] == "root"
    for target, kind, wid in ((child, "client", client.id), (client, "client", client.id),
                              (X.PointerRoot, "none", None), (X.NONE, "none", None),
                              (root, "root", root.id), (unclassed, "unknown", unclassed.id),
                              (popup, "popup", popup.id)):
        d.set_input_focus(target, X.RevertToNone, X.CurrentTime)
        d.sync()
        focus = facts(rt)["focus"]
        assert (focus["kind"], focus["window"]) == (kind, wid), target


def test_frames_are_descended_on_the_server(bare_x):
    """A frame (the test's own) around a client: its border and title bar are decoration, the
    client is the client, and a part of the client cut out of its input shape is the frame
    again (what the geometry alone would get wrong)."""
    d, root, rt, window = bare_x
    frame = window(root, 100, 300, 400, 300)
    inner = window(frame, 0, 20, 400, 280)
    client = window(root, 0, 0, 380, 260, "framed", ("framed", "Framed"))
    client.reparent(inner, 10, 10)
    for w in (frame, inner, client):
        w.map()
    set_stacking(d, [client])
    d.sync()
    info = wait_until(lambda: next((w for w in rt.call("list_windows")["windows"]
                                    if w["id"] == client.id), None))
    assert (info["x"], info["y"]) == (110, 330)
    mine = {"kind": "client", "window": client.id, "app": app_of(info)}
    decoration = dict(mine, kind="decoration")
    got = facts(rt, (300, 310), (105, 400), (300, 450), (495, 595))
    assert got["at"] == [decoration, decoration, mine, decoration]
    for target in (frame, inner):
        d.set_input_focus(target, X.RevertToNone, X.CurrentTime)
        d.sync()
        assert facts(rt)["focus"] == decoration
    client.shape_rectangles(shape.SO.Set, shape.SK.Input, X.Unsorted, 0, 0,
                            [{"x": 190, "y": 0, "width": 190, "height": 260}])
    d.sync()
    assert facts(rt, (150, 450), (400, 450))["at"] == [decoration, mine]


def test_window_manager_gone(tmp_path_factory):
    """The window manager killed: its last client list stays on the root, the clients go
    back to the root, the keyboard follows the pointer. Nothing is guessed from what is left."""
    desk = Desktop(tmp_path_factory.mktemp("wm-gone"))
    d = xdisplay.Display(desk.display)
    try:
        rt = RuntimeProcess(desk)
        root = d.screen().root
        client = make_window(d, root, 0, 0, 300, 200, "survivor", ("survivor", "Survivor"))
        client.map()
        d.sync()

        def spot():
            w = next((w for w in rt.call("list_windows")["windows"]
                      if w["id"] == client.id and w["mapped"]), None)
            return w and (w["x"] + 150, w["y"] + 100)
        assert wait_until(lambda: spot() and facts(rt, spot())["at"][0]["kind"] == "client")
        openbox = next(p for p in desk.procs if p.args[0] == "openbox" and p.poll() is None)
        openbox.kill()
        openbox.wait(5)
        # Back on the root (the server's save-set), where the frame was.
        assert wait_until(lambda: client.query_tree().parent.id == root.id)
        late = make_window(d, root, 0, 0, 100, 100, "late", ("late", "Late"))
        late.map()
        d.set_input_focus(X.PointerRoot, X.RevertToPointerRoot, X.CurrentTime)
        d.sync()
        got = facts(rt, spot(), (50, 50), (1270, 790))
        # openbox died without cleaning up: its last client list is still on the root.
        assert root.get_full_property(d.intern_atom("_NET_CLIENT_LIST_STACKING"), 0)
        assert (got["at"][0]["kind"], got["at"][0]["window"]) == ("client", client.id)
        # A window mapped since is in no list: unknown, not a client by some guess.
        assert got["at"][1] == {"kind": "unknown", "window": late.id, "app": None}
        assert got["at"][2]["kind"] == "root"
        assert got["focus"] == {"kind": "none", "window": None, "app": None}
    finally:
        d.close()
        desk.close()
