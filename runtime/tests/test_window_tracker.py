"""The runtime's window state (kept from X events) against a fresh full query, after real X
operations: under openbox, and on a bare X server where the test itself plays the window
manager (frames nested two deep, reparenting, gravity, a client list it writes itself)."""
import os
import time

import pytest
from Xlib import X, Xatom, display as xdisplay, error as xerror
from Xlib.ext import res

from conftest import make_window, set_stacking, set_title

GONE = (xerror.BadWindow, xerror.BadDrawable, xerror.BadMatch)


def reference(d):
    """(window list, focus window id) read from scratch with plain python-xlib, the way the
    runtime answered before it tracked events."""
    root = d.screen().root

    def prop(win, name, type_=X.AnyPropertyType):
        p = win.get_full_property(d.intern_atom(name), type_)
        return None if p is None else p.value

    stacking = prop(root, "_NET_CLIENT_LIST_STACKING", Xatom.WINDOW)
    if stacking is None:
        wins = [w for w in root.query_tree().children
                if w.get_wm_class() and not w.get_attributes().override_redirect]
    else:
        wins = [d.create_resource_object("window", w) for w in stacking]
    out = []
    for w in wins:
        try:
            geo, attrs = w.get_geometry(), w.get_attributes()
            pos = root.translate_coords(w, 0, 0)
            title = prop(w, "_NET_WM_NAME", d.intern_atom("UTF8_STRING"))
            if title is None:
                title = prop(w, "WM_NAME")
            wm_class = w.get_wm_class()
            pid = prop(w, "_NET_WM_PID", Xatom.CARDINAL)
            if pid is not None:
                pid = int(pid[0])
            else:
                ids = d.res_query_client_ids([{"client": w.id, "mask": res.LocalClientPIDMask}]).ids
                pid = next((int(i.value[0]) for i in ids if i.value), None)
        except GONE:
            continue
        out.append({"id": w.id, "x": pos.x, "y": pos.y, "width": geo.width, "height": geo.height,
                    "mapped": attrs.map_state == X.IsViewable,
                    "title": "" if title is None else title.decode("utf-8", "replace"),
                    "wm_class": list(wm_class) if wm_class else None, "pid": pid,
                    "exe": os.readlink(f"/proc/{pid}/exe") if pid else None})
    focus = d.get_input_focus().focus
    return out, (focus if isinstance(focus, int) else focus.id)


def assert_tracked(rt, d):
    """The runtime's gate facts equal a fresh query taken while the desktop stood still."""
    for _ in range(200):
        before = reference(d)
        facts = rt.call("gate_facts")
        if reference(d) == before:  # nothing moved around our request: the answer is exact
            windows, focus = before
            assert facts["windows"] == windows
            if any(w["id"] == focus for w in windows):
                mine = next(w for w in windows if w["id"] == focus)
                assert facts["focus"] == {"kind": "client", "window": focus, "app": {
                    "window": focus, "title": mine["title"], "wm_class": mine["wm_class"],
                    "pid": mine["pid"], "exe": mine["exe"]}}
            return {w["id"]: w for w in windows}
        time.sleep(0.02)
    raise AssertionError("the desktop never stood still")


def wait_listed(rt, d, wid, present=True):
    for _ in range(250):
        if (wid in assert_tracked(rt, d)) == present:
            return
        time.sleep(0.02)
    raise AssertionError(f"window 0x{wid:x} {'never appeared' if present else 'never left'}")


@pytest.fixture
def xconn(desktop):
    d = xdisplay.Display(desktop.display)
    yield d
    d.close()


def test_tracked_state_under_openbox(rt, xconn):
    d, root = xconn, xconn.screen().root
    a = make_window(d, root, 50, 60, 300, 200, "tracker A", ("trackA", "TrackerTest"))
    b = make_window(d, root, 400, 300, 200, 150, "tracker B ✓", ("trackB", "TrackerTest"))
    a.map()
    d.sync()
    wait_listed(rt, d, a.id)
    b.map()
    d.sync()
    wait_listed(rt, d, b.id)
    try:
        a.configure(x=120, y=90)  # the WM moves its frame: the client's root position changes
        b.configure(width=260, height=180)
        d.sync()
        assert_tracked(rt, d)
        for i in range(30):  # a burst of moves with no pause
            a.configure(x=100 + 7 * i, y=80 + 3 * i)
        d.sync()
        assert_tracked(rt, d)
        rt.call("activate", window=a.id)  # restack and change the active window
        listed = assert_tracked(rt, d)
        assert list(listed)[-1] == a.id and rt.call("gate_facts")["focus"]["window"] == a.id
        rt.call("iconify", window=b.id)
        assert assert_tracked(rt, d)[b.id]["mapped"] is False
        rt.call("activate", window=b.id)
        assert assert_tracked(rt, d)[b.id]["mapped"] is True
        set_title(d, a, "renamed A")
        d.sync()
        assert assert_tracked(rt, d)[a.id]["title"] == "renamed A"
        a.unmap()  # withdrawn: the WM stops managing it
        d.sync()
        wait_listed(rt, d, a.id, present=False)
        a.map()
        d.sync()
        wait_listed(rt, d, a.id)
        b.destroy()
        d.sync()
        wait_listed(rt, d, b.id, present=False)
    finally:
        for w in (a, b):
            try:
                w.destroy()
                d.sync()
            except GONE:
                pass
    wait_listed(rt, d, a.id, present=False)


def test_tracked_state_through_nested_frames(bare):
    desk, rt = bare
    d = xdisplay.Display(desk.display)
    root = d.screen().root
    try:
        frame = make_window(d, root, 100, 100, 500, 400, border=2)
        inner = make_window(d, frame, 5, 20, 480, 360, win_gravity=X.SouthEastGravity)
        other = make_window(d, root, 700, 50, 300, 300, border=1)
        client = make_window(d, root, 10, 10, 200, 100, "client", ("cli", "Nested"))
        second = make_window(d, root, 40, 40, 100, 80, "second", ("sec", "Nested"))
        for w in (frame, inner, other, client, second):
            w.map()
        set_stacking(d, [client, second])
        d.sync()
        assert set(assert_tracked(rt, d)) == {client.id, second.id}
        client.reparent(inner, 3, 4)  # managed two levels deep
        d.sync()
        assert assert_tracked(rt, d)[client.id]["x"] == 100 + 2 + 5 + 3
        frame.configure(x=150, y=130)  # the outer frame moves
        d.sync()
        assert_tracked(rt, d)
        inner.configure(x=9, y=25)  # the inner one moves inside it
        frame.configure(border_width=4)
        d.sync()
        assert_tracked(rt, d)
        frame.configure(width=560, height=450)  # inner follows by gravity (GravityNotify)
        d.sync()
        assert_tracked(rt, d)
        inner.unmap()  # an ancestor unmapped: the client is no longer viewable
        d.sync()
        assert assert_tracked(rt, d)[client.id]["mapped"] is False
        inner.map()
        client.configure(width=220, height=120)
        d.sync()
        assert assert_tracked(rt, d)[client.id]["mapped"] is True
        client.reparent(other, 6, 7)  # into another frame; the old one no longer matters
        d.sync()
        assert_tracked(rt, d)
        frame.configure(x=10, y=10)
        other.configure(x=650, y=60)
        d.sync()
        assert_tracked(rt, d)
        root.change_property(d.intern_atom("_NET_ACTIVE_WINDOW"), Xatom.WINDOW, 32, [second.id])
        set_title(d, second, "second, renamed")
        d.sync()
        assert rt.call("frontmost_app")["title"] == "second, renamed"
        assert_tracked(rt, d)
        for i in range(40):  # a burst: the answer right after must not be stale
            other.configure(x=600 + i, y=40 + i)
            second.configure(x=20 + i)
        d.sync()
        assert_tracked(rt, d)
        other.destroy()  # destroys the client inside it, while the client list still names it
        d.sync()
        assert set(assert_tracked(rt, d)) == {second.id}
        set_stacking(d, [second])
        d.sync()
        assert set(assert_tracked(rt, d)) == {second.id}
    finally:
        d.close()


def test_tracked_state_without_ewmh(bare):
    desk, rt = bare
    d = xdisplay.Display(desk.display)
    root = d.screen().root
    try:
        root.delete_property(d.intern_atom("_NET_CLIENT_LIST_STACKING"))
        root.delete_property(d.intern_atom("_NET_ACTIVE_WINDOW"))
        first = make_window(d, root, 10, 20, 300, 200, "first", ("one", "Plain"))
        unclassed = make_window(d, root, 50, 60, 100, 100, "no class yet")
        first.map()
        unclassed.map()
        d.sync()
        assert first.id in assert_tracked(rt, d)  # the root's children that carry WM_CLASS
        assert unclassed.id not in assert_tracked(rt, d)
        unclassed.set_wm_class("two", "Plain")
        d.sync()
        assert list(assert_tracked(rt, d))[-2:] == [first.id, unclassed.id]
        first.configure(stack_mode=X.Above)  # restack: the order of the root's children
        d.sync()
        assert list(assert_tracked(rt, d))[-2:] == [unclassed.id, first.id]
        first.unmap()
        unclassed.configure(x=70, width=90)
        d.sync()
        assert assert_tracked(rt, d)[first.id]["mapped"] is False
        first.destroy()
        d.sync()
        assert first.id not in assert_tracked(rt, d)
        # No active window: the input focus, walked up to its client.
        unclassed.set_input_focus(X.RevertToParent, X.CurrentTime)
        unclassed.change_property(d.intern_atom("WM_STATE"), d.intern_atom("WM_STATE"), 32, [1, 0])
        d.sync()
        assert rt.call("frontmost_app")["window"] == unclassed.id
        assert rt.call("gate_facts")["focus"]["window"] == unclassed.id
    finally:
        d.close()


def test_events_in_flight_at_the_sync_point(bare):
    """Events the server sent before the sync point but that were not read yet when the
    refresh began (the server loop drains before each request; here nobody does)."""
    from deskgate_runtime.window_tracker import WindowTracker
    from deskgate_runtime.xconn import XConnection
    desk, _ = bare
    x = XConnection(desk.display)
    d = xdisplay.Display(desk.display)
    try:
        tracker = WindowTracker(x)
        win = make_window(d, d.screen().root, 30, 40, 200, 100, "in flight", ("fly", "Flight"))
        win.map()
        set_stacking(d, [win])
        d.sync()
        tracker.refresh()
        assert [w["id"] for w in tracker.windows()] == [win.id]
        win.configure(x=300, y=200, width=150)
        set_title(d, win, "moved")
        d.sync()  # the server has sent the events; the tracker has not read them
        tracker.refresh()
        (mine,) = tracker.windows()
        assert (mine["x"], mine["y"], mine["width"], mine["title"]) == (300, 200, 150, "moved")
    finally:
        d.close()
        x.close()
