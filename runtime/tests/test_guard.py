"""The input guard: input sent only while what the gates judged still holds, checked and sent
under one server grab. Under openbox, with the probe app and windows the test maps itself."""
import subprocess
import threading
import time

import pytest
from Xlib import X, XK, display as xdisplay

from conftest import chords, make_window, wait_until
from deskgate_runtime.guard import parse_guard
from deskgate_runtime.protocol import Params

MIXED = "Hello, wörld — 日本語 ✓"
MANY_DISTINCT = ("日本語中文字符漢字測試東京大阪京都北海道沖縄九州四国山川海空雨雪花鳥風月春夏秋冬"
                 "ÄöüßéèçñØÅ€✓→≠αβγδεζηθλμπσφψω")  # more distinct characters than spare keycodes


@pytest.fixture
def xconn(desktop):
    d = xdisplay.Display(desktop.display)
    made = []

    def window(*args, **kw):
        win = make_window(d, d.screen().root, *args, **kw)
        made.append(win)
        return win
    yield d, window
    for win in made:
        win.destroy()
    d.sync()
    d.close()


def at_guard(rt, *points):
    """The guard the gates would build from gate_facts about these points."""
    got = rt.call("gate_facts", points=[list(p) for p in points])["at"]
    return {"at": [[x, y, s["kind"], s["window"]] for (x, y), s in zip(points, got)]}


def managed(rt, d, window, name):
    """A managed client window of the test's own, listed by the runtime and activated."""
    win = window(900, 100, 300, 200, name, (name, "GuardTest"),
                 event_mask=X.KeyPressMask | X.ButtonPressMask)
    win.map()
    d.sync()
    assert wait_until(lambda: any(w["id"] == win.id for w in rt.call("list_windows")["windows"]))
    rt.call("activate", window=win.id)
    return win


def managed_id(rt, name):
    return next(w["id"] for w in rt.call("list_windows")["windows"]
                if w["wm_class"] and w["wm_class"][0] == name)


def input_events(d, settle=0.3):
    time.sleep(settle)
    d.sync()
    events = []
    while d.pending_events():
        ev = d.next_event()
        if ev.type in (X.KeyPress, X.KeyRelease, X.ButtonPress, X.ButtonRelease):
            events.append(ev)
    return events


def probe_input(probe, since):
    return [e for e in probe.events(since)
            if e["type"] in ("key", "key_release", "press", "release", "text")]


def server_answers(desktop):
    """Another client still gets answers: the grab was released."""
    r = subprocess.run(["xprop", "-root", "_NET_ACTIVE_WINDOW"], env=desktop.env, timeout=5,
                       capture_output=True)
    return r.returncode == 0


def key_is_down(d, keysym):
    kc = d.keysym_to_keycode(keysym)
    return bool(d.query_keymap()[kc // 8] & (1 << (kc % 8)))


# -- keys ---------------------------------------------------------------------------------
def test_key_is_refused_when_the_focus_moved(rt, probe, focused, xconn, desktop):
    """The gates read the focus on another window; then it moved to the probe (as openbox does
    after a click): the keys judged against the other window must not reach the probe."""
    d, window = xconn
    other = managed(rt, d, window, "guardOther")
    assert rt.call("gate_facts")["focus"]["window"] == other.id  # what the gates judged
    rt.call("activate", window=focused["id"])  # the focus moves before the input is sent
    since = probe.mark()
    err = rt.error("key", chords=chords("x"), guard={"focus": other.id})
    assert err["kind"] == "guard_failed" and "nothing was sent" in err["message"]
    assert "typed" not in err
    err = rt.error("type", text="typed", guard={"focus": other.id})
    assert err["kind"] == "guard_failed" and err.get("typed") is None
    assert rt.error("key_down", chords=chords("shift"),
                    guard={"focus": other.id})["kind"] == "guard_failed"
    assert not key_is_down(d, XK.XK_Shift_L)
    assert not probe_input(probe, since) and not input_events(d)
    assert server_answers(desktop)


def test_matching_focus_guard_sends(rt, probe, focused):
    since = probe.mark()
    guard = {"focus": focused["id"]}
    rt.call("key", chords=chords("a shift+b"), guard=guard)
    assert rt.call("type", text=" c", guard=guard) == {"typed": 2}
    assert probe.wait_text("aB c", since), probe.text_value(since)


def test_guard_never_blocks_key_releases(rt, probe, focused, xconn):
    d, window = xconn
    guard = {"focus": focused["id"]}
    rt.call("key_down", chords=chords("shift"), guard=guard)
    assert key_is_down(d, XK.XK_Shift_L)
    managed(rt, d, window, "guardRelease")  # the focus moves while the key is held
    rt.call("key_up", chords=chords("shift"), guard=guard)  # the stale guard changes nothing
    assert not key_is_down(d, XK.XK_Shift_L)
    rt.call("key_down", chords=chords("shift"), guard={"focus": managed_id(rt, "guardRelease")})
    rt.call("key_up", chords=chords("shift"), guard="not even a guard")
    assert not key_is_down(d, XK.XK_Shift_L)
    assert rt.error("key", chords=chords("x"), guard=guard)["kind"] == "guard_failed"


def test_guarded_typing_binds_spare_keycodes_outside_the_grab(rt, probe, focused):
    """Binding characters missing from the keymap waits for the focused client to fetch the
    new map: under the grab that would hang. Each chunk is checked and sent on its own."""
    guard = {"focus": focused["id"]}
    since = probe.mark()
    assert rt.call("type", text=MIXED, guard=guard) == {"typed": len(MIXED)}
    assert probe.wait_text(MIXED, since), probe.text_value(since)
    text = MIXED + "\n" + MANY_DISTINCT  # slots reused: waits for the client between chunks
    started = time.monotonic()
    assert rt.call("type", text=text, guard=guard) == {"typed": len(text)}
    assert time.monotonic() - started < 5
    assert probe.wait_text(MIXED + text, since), probe.text_value(since)


def test_typing_stops_at_the_chunk_whose_check_fails(rt, probe, focused, xconn, desktop):
    """An app takes the focus on the first key it gets: the chunks already sent stay typed,
    the rest is not sent, and the error says how many characters were typed."""
    d, window = xconn
    thief = managed(rt, d, window, "guardThief")
    d2 = xdisplay.Display(desktop.display)  # the thief's own connection, to see its keys
    thief2 = d2.create_resource_object("window", thief.id)
    thief2.change_attributes(event_mask=X.KeyPressMask)
    d2.sync()
    probe_win = d2.create_resource_object("window", focused["id"])
    keys = []

    def steal_focus():
        ev = d2.next_event()
        while ev.type != X.KeyPress:
            ev = d2.next_event()
        keys.append(ev)
        d2.set_input_focus(probe_win, X.RevertToParent, X.CurrentTime)
        d2.sync()  # processed once the runtime's grab ends
    thread = threading.Thread(target=steal_focus, daemon=True)
    thread.start()
    since = probe.mark()
    # 400 chunks: the thief's focus change must get in between two of them, however fast the
    # runtime types (40 were all typed first once, on a quick machine).
    text = "abcdefgh" * 8 * 400
    err = rt.error("type", text=text, guard={"focus": thief.id})
    thread.join(5)
    try:
        assert err["kind"] == "guard_failed", err
        assert 0 < err["typed"] < len(text) and err["typed"] % 64 == 0
        assert err["message"].endswith(
            f"; {err['typed']} of {len(text)} characters were typed, the rest was not")
        assert keys and not probe_input(probe, since)
        got = [ev for ev in input_events(d) if ev.type == X.KeyPress]
        assert len(got) == err["typed"]  # the chunks sent went whole to the thief; no more
        assert server_answers(desktop)
    finally:
        d2.close()


# -- the pointer ----------------------------------------------------------------------------
def test_click_is_refused_when_a_window_was_mapped_over_the_target(rt, probe, focused, xconn,
                                                                   desktop):
    d, window = xconn
    x, y = probe.center("color_area")
    guard = at_guard(rt, (x, y))
    assert guard["at"][0][2:] == ["client", focused["id"]]
    cover = window(x - 20, y - 20, 40, 40, override_redirect=True,
                   event_mask=X.ButtonPressMask | X.ButtonReleaseMask)
    cover.map()  # after the gates read, before the input is sent
    d.sync()
    since = probe.mark()
    err = rt.error("click", x=x, y=y, button="left", guard=guard)
    assert err["kind"] == "guard_failed" and f"at ({x}, {y})" in err["message"]
    err = rt.error("click", x=x, y=y, button="left", modifiers=["ctrl"], guard=guard)
    assert err["kind"] == "guard_failed"
    assert rt.error("scroll", x=x, y=y, direction="down", guard=guard)["kind"] == "guard_failed"
    assert rt.error("mouse_down", button="left", x=x, y=y,
                    guard=guard)["kind"] == "guard_failed"
    assert rt.error("move", x=x, y=y, guard=guard)["kind"] == "guard_failed"
    assert not input_events(d) and not probe_input(probe, since)
    assert rt.call("gate_facts")["buttons"] == [] and not key_is_down(d, XK.XK_Control_L)
    assert server_answers(desktop)
    rt.call("click", x=x, y=y, button="left")  # unguarded, it lands on the new window
    assert [ev.type for ev in input_events(d)] == [X.ButtonPress, X.ButtonRelease]


def test_matching_pointer_guards_send(rt, probe, focused):
    x, y = probe.center("color_area")
    since = probe.mark()
    rt.call("click", x=x, y=y, button="left", modifiers=["shift"], guard=at_guard(rt, (x, y)))
    release = probe.wait_for(lambda e: e["type"] == "release", since)
    assert release and (release["x_root"], release["y_root"]) == (x, y)
    assert wait_until(lambda: any(e["type"] == "key_release" and e["keysym"] == "Shift_L"
                                  for e in probe.events(since)))
    since = probe.mark()
    rt.call("scroll", x=x, y=y + 5, direction="up", amount=2, guard=at_guard(rt, (x, y + 5)))
    assert wait_until(lambda: len([e for e in probe.events(since) if e["type"] == "release"]) == 2)
    rt.call("move", x=x + 1, y=y, guard=at_guard(rt, (x + 1, y)))
    assert rt.call("cursor_position") == {"x": x + 1, "y": y}


def test_guarded_drag_holds_the_grab_from_press_to_release(rt, probe, focused, xconn):
    d, window = xconn
    box = probe.ready["color_area"]
    start, end = (box["x"] + 50, box["y"] + 50), (box["x"] + 400, box["y"] + 250)
    since = probe.mark()
    rt.call("drag", **{"from": list(start), "to": list(end)}, guard=at_guard(rt, start, end))
    assert probe.wait_for(lambda e: e["type"] == "release", since)
    evs = [e for e in probe.events(since) if e["type"] in ("press", "motion_drag", "release")]
    assert (evs[0]["type"], evs[0]["x_root"], evs[0]["y_root"]) == ("press", *start)
    assert (evs[-1]["type"], evs[-1]["x_root"], evs[-1]["y_root"]) == ("release", *end)
    # The drop point is covered after the gates read: nothing is pressed at all.
    guard = at_guard(rt, start, end)
    cover = window(end[0] - 10, end[1] - 10, 20, 20, override_redirect=True,
                   event_mask=X.ButtonPressMask | X.ButtonReleaseMask)
    cover.map()
    d.sync()
    since = probe.mark()
    err = rt.error("drag", **{"from": list(start), "to": list(end)}, guard=guard)
    assert err["kind"] == "guard_failed" and f"at ({end[0]}, {end[1]})" in err["message"]
    assert not input_events(d) and not probe_input(probe, since)
    assert rt.call("gate_facts")["buttons"] == []


# -- the parameter ----------------------------------------------------------------------------
def guard_param(value, op="click"):
    p = Params(op, {"guard": value})
    return parse_guard(p, 1280, 800)


def test_guard_parameter_shapes():
    assert guard_param(None) is None
    g = guard_param({"focus": 5, "at": [[1, 2, "client", 5], [3, 4, "root", None]]})
    assert g.focus == 5 and g.at == [((1, 2), "client", 5), ((3, 4), "root", None)]
    for bad in ({}, {"at": []}, {"focus": 0}, {"focus": True}, {"focus": 5, "extra": 1},
                {"at": [[1, 2, "client"]]}, {"at": [[1280, 2, "client", 5]]},
                {"at": [[1, 2, "window", 5]]}, {"at": [[1, 2, "client", "5"]]},
                {"at": [[0, 0, "root", None]] * 17}, [1, 2], "guard"):
        with pytest.raises(ValueError):
            guard_param(bad)


def test_malformed_guard_sends_nothing(rt, probe, focused):
    since = probe.mark()
    assert rt.error("key", chords=chords("x"), guard={"focus": "me"})["kind"] == "bad_args"
    assert rt.error("click", x=5, y=5, guard={"at": [[5, 5, "app", 1]]})["kind"] == "bad_args"
    time.sleep(0.2)
    assert not probe_input(probe, since)


# -- judged on reported facts (one round trip per action) -------------------------------------
def facts_guard(rt, *points):
    """The guard the worker sends when its gates judged on the facts reported last."""
    facts = rt.call("gate_facts", points=[list(p) for p in points])
    guard = {"at": [[x, y, s["kind"], s["window"]] for (x, y), s in zip(points, facts["at"])],
             "facts": facts["token"]}
    return facts, guard


def test_reported_facts_token_is_stable_until_something_changes(rt, probe, focused, xconn):
    d, window = xconn
    x, y = probe.center("color_area")
    first = rt.call("gate_facts", points=[[x, y]])
    assert first["token"] == rt.call("gate_facts")["token"]  # the points are not part of it
    managed(rt, d, window, "tokenOther")  # a window mapped, the focus moved
    assert rt.call("gate_facts")["token"] != first["token"]


def test_input_judged_on_reported_facts_is_sent_and_answers_the_facts_after(rt, probe, focused,
                                                                           desktop):
    x, y = probe.center("color_area")
    rt.call("move", x=x, y=y)
    facts, guard = facts_guard(rt, (x, y))
    since = probe.mark()
    answer = rt.call("click", x=x, y=y, button="left", guard=guard)
    assert probe.wait_for(lambda e: e["type"] == "release", since)
    # The release of the grab went out with the read of the facts after the click.
    assert server_answers(desktop)
    # Nothing the gates judge by changed (the window manager's replay of the click it held
    # was waited for): only the token comes back.
    assert answer == {"facts": {"token": facts["token"]}}
    # A move changes only the pointer: its parts come back, under a new token that stands for
    # what the server has now (gate_facts reads the same facts under the same token).
    answer = rt.call("move", x=x + 3, y=y, guard={"at": [[x + 3, y, "client", focused["id"]]],
                                                   "facts": facts["token"]})
    after = answer["facts"]
    assert set(after) == {"token", "cursor", "under_pointer", "buttons"}
    assert after["token"] != facts["token"] and after["cursor"] == {"x": x + 3, "y": y}
    assert after["under_pointer"]["window"] == focused["id"] and after["buttons"] == []
    read = rt.call("gate_facts")
    assert read["token"] == after["token"]
    assert {k: read[k] for k in ("cursor", "under_pointer", "buttons")} == {
        k: after[k] for k in ("cursor", "under_pointer", "buttons")}
    # Keys judged on those facts.
    since = probe.mark()
    answer = rt.call("type", text="ok", guard={"focus": focused["id"], "facts": after["token"]})
    assert answer == {"typed": 2, "facts": {"token": after["token"]}}
    assert probe.wait_text("ok", since)


def test_facts_after_a_move_onto_another_window_and_a_click_that_moved_the_focus(rt, probe,
                                                                                focused, xconn):
    """The pointer's parts after a move are what the server has at the new point (another
    window's surface); a click that made the window manager move the focus answers with the
    whole facts (more than the pointer changed)."""
    d, window = xconn
    other = managed(rt, d, window, "factsMoveOther")  # takes the focus
    placed = next(w for w in rt.call("list_windows")["windows"] if w["id"] == other.id)
    inside = (placed["x"] + placed["width"] // 2, placed["y"] + placed["height"] // 2)
    facts, guard = facts_guard(rt, inside)
    assert facts["at"][0]["window"] == other.id
    after = rt.call("move", x=inside[0], y=inside[1], guard=guard)["facts"]
    assert set(after) == {"token", "cursor", "under_pointer", "buttons"}
    assert after["under_pointer"]["kind"] == "client" and after["under_pointer"]["window"] == other.id
    assert rt.call("gate_facts")["token"] == after["token"]
    # A click on the probe, which does not hold the focus: openbox focuses it on the press.
    x, y = probe.center("color_area")
    facts, guard = facts_guard(rt, (x, y))
    assert facts["focus"]["window"] == other.id
    since = probe.mark()
    after = rt.call("click", x=x, y=y, button="left", guard=guard)["facts"]
    assert probe.wait_for(lambda e: e["type"] == "release", since)
    assert after["focus"]["window"] == focused["id"] and after["cursor"] == {"x": x, "y": y}
    assert after["token"] == rt.call("gate_facts")["token"]


def test_input_judged_on_facts_that_changed_is_refused_with_the_fresh_facts(rt, probe, focused,
                                                                          xconn, desktop):
    d, window = xconn
    x, y = probe.center("color_area")
    facts, guard = facts_guard(rt, (x, y))
    other = managed(rt, d, window, "factsOther")  # the focus and the window list changed
    since = probe.mark()
    err = rt.error("click", x=x, y=y, button="left", guard=guard)
    assert err["kind"] == "guard_failed" and "nothing was sent" in err["message"]
    fresh = err["facts"]
    assert fresh["token"] != facts["token"] and fresh["focus"]["window"] == other.id
    assert [s["kind"] for s in fresh["at"]] == ["client"]  # the guard's points, read again
    assert any(w["id"] == other.id for w in fresh["windows"])
    err = rt.error("key", chords=chords("x"), guard={"focus": focused["id"],
                                                     "facts": facts["token"]})
    assert err["kind"] == "guard_failed" and err["facts"]["token"] == fresh["token"]
    # A stale or unknown token is refused the same way; the fresh one is sent.
    assert rt.error("move", x=x, y=y, guard={**guard, "facts": "nope"})["kind"] == "guard_failed"
    assert not input_events(d) and not probe_input(probe, since)
    assert server_answers(desktop)
    rt.call("click", x=x, y=y, button="left", guard={**guard, "facts": fresh["token"]})
    assert probe.wait_for(lambda e: e["type"] == "release", since)


def test_reported_facts_do_not_replace_the_surface_check(rt, probe, focused, xconn):
    d, window = xconn
    x, y = probe.center("color_area")
    facts, guard = facts_guard(rt, (x, y))
    guard["at"][0][2] = "root"  # a wrong guess of the surface at the point, same token
    since = probe.mark()
    err = rt.error("click", x=x, y=y, button="left", guard=guard)
    assert err["kind"] == "guard_failed" and f"at ({x}, {y})" in err["message"]
    assert err["facts"]["at"][0]["kind"] == "client"
    assert not probe_input(probe, since)


def test_facts_token_parameter_shape():
    assert guard_param({"at": [[1, 2, "client", 5]], "facts": "ab-1"}).facts == "ab-1"
    for bad in ({"at": [[1, 2, "client", 5]], "facts": 5}, {"at": [[1, 2, "client", 5]], "facts": ""},
                {"at": [[1, 2, "client", 5]], "facts": "x" * 65}, {"facts": "ab-1"}):
        with pytest.raises(ValueError):
            guard_param(bad)
