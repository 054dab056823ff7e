"""The wire protocol: bad requests are answered, never fatal; one process serves them all."""
import json
import time

from conftest import RuntimeProcess


def test_bad_requests_get_bad_args_and_serving_continues(rt):
    pid = rt.proc.pid
    rt.send_raw(b"this is not json\n")
    assert rt.read()["error"]["kind"] == "bad_args"
    rt.send_raw(b'[1, 2]\n')
    assert rt.read()["error"]["kind"] == "bad_args"
    cases = [
        ("no_such_op", {}),
        ("click", {"x": "10", "y": 10}),
        ("click", {"x": 10.5, "y": 10}),
        ("click", {"x": True, "y": 10}),
        ("click", {"x": 10, "y": 10, "button": "fourth"}),
        ("click", {"x": 10, "y": 10, "count": 4}),
        ("click", {"x": 99999, "y": 10}),
        ("click", {"x": 10, "y": 10, "modifiers": ["ctrl", "q"]}),
        ("click", {"x": 10, "y": 10, "extra": 1}),
        ("move", {"x": 10}),
        ("scroll", {"x": 1, "y": 1, "direction": "sideways", "amount": 1}),
        ("scroll", {"x": 1, "y": 1, "direction": "up", "amount": 101}),
        ("click", {"x": 10, "y": 10, "modifiers": ["Control"]}),
        ("click", {"x": 10, "y": 10, "modifiers": ["super"]}),
        ("drag", {"to": [5, 5], "modifiers": ["ctrl+shift"]}),
        ("scroll", {"x": 1, "y": 1, "direction": "up", "modifiers": ["CTRL"]}),
        ("key", {"chords": [[97]], "repeat": 0}),
        ("key", {"chords": [[]]}),
        ("key", {"keys": "a"}),
        ("hold_key", {"chords": [[97]], "duration": 1}),
        ("gate_facts", {"points": [[1, 1]] * 17}),
        ("gate_facts", {"points": [[1280, 1]]}),
        ("gate_facts", {"points": [1, 1]}),
        ("gate_facts", {"points": "1,1"}),
        ("drag", {"to": [1]}),
        ("type", {}),
        ("type", {"text": None}),
        ("activate", {"window": "abc"}),
    ]
    for op, params in cases:
        err = rt.error(op, **params)
        assert err["kind"] == "bad_args", (op, params, err)
        assert err["message"]
    assert rt.call("ping") == {}
    assert rt.proc.pid == pid and rt.proc.poll() is None


def test_oversized_line_is_rejected(rt):
    rt.send_raw(b'{"id": 991, "op": "type", "text": "' + b"a" * (1 << 20) + b'"}\n')
    resp = rt.read()
    assert resp["id"] == 991 and resp["error"]["kind"] == "bad_args"
    assert "longer than" in resp["error"]["message"]
    assert rt.call("ping") == {}


def test_many_requests_one_process_in_order(rt):
    pid = rt.proc.pid
    batch = b"".join(json.dumps({"id": f"p{i}", "op": "ping"}).encode() + b"\n"
                     for i in range(500))
    rt.send_raw(batch)
    ids = [rt.read()["id"] for _ in range(500)]
    assert ids == [f"p{i}" for i in range(500)]
    start = time.monotonic()
    for _ in range(200):
        rt.call("cursor_position")
    assert rt.proc.pid == pid and rt.proc.poll() is None
    print(f"cursor_position round trip: {(time.monotonic() - start) / 200 * 1000:.2f} ms")


def test_stdin_eof_releases_and_exits_zero(desktop, probe):
    other = RuntimeProcess(desktop)
    x = probe.ready["color_area"]["x"] + 10
    y = probe.ready["color_area"]["y"] + 10
    since = probe.mark()
    other.call("mouse_down", button="left", x=x, y=y)
    other.call("key_down", chords=[[0xFFE1]])
    other.proc.stdin.close()
    assert other.proc.wait(10) == 0
    assert probe.wait_for(lambda e: e["type"] == "release" and e["button"] == 1, since)
    assert probe.wait_for(lambda e: e["type"] == "key_release" and e["keysym"] == "Shift_L",
                          since)


def test_no_x_server_reports_display_error(desktop):
    other = RuntimeProcess(desktop, display=":199")
    err = other.error("check")
    assert err["kind"] == "display_error"
    other.proc.stdin.close()
    assert other.proc.wait(10) == 0
