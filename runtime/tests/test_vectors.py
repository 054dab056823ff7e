"""The shared test vectors (packages/helper-protocol/vectors/input.json) against the runtime.

The real runtime (a process on a bare Xvfb, spoken to over its protocol) answers every vector
request and refusal as listed; its serializer writes the vectors' response lines byte for byte;
its constants are the vectors'. The TypeScript package and the Rust capture helper check their
own vector files the same way.
"""
import json
from pathlib import Path

import pytest

from conftest import REPO, RuntimeProcess
from deskgate_runtime import guard, keyboard, keysyms, launcher, ops, protocol

VECTORS = json.loads((REPO / "packages" / "helper-protocol" / "vectors" / "input.json").read_text())


def test_constants_are_the_vectors():
    ours = {
        "max_line": protocol.MAX_LINE,
        "max_text": keyboard.MAX_TEXT,
        "max_chords": keysyms.MAX_CHORDS,
        "max_chord_keys": keysyms.MAX_CHORD_KEYS,
        "max_keysym": keysyms.MAX_KEYSYM,
        "max_gate_points": ops.MAX_GATE_POINTS,
        "max_guard_points": guard.MAX_POINTS,
        "max_facts_token": guard.TOKEN_MAX,
        "max_window_id": ops.MAX_WINDOW_ID,
        "max_args": launcher.MAX_ARGS,
        "max_launch_bytes": launcher.MAX_LAUNCH_BYTES,
        "max_desktop_files": launcher.MAX_DESKTOP_FILES,
        "max_desktop_file_bytes": launcher.MAX_DESKTOP_FILE_BYTES,
        "max_desktop_total_bytes": launcher.MAX_DESKTOP_TOTAL_BYTES,
    }
    assert ours == VECTORS["constants"]
    assert guard.MAX_WINDOW_ID == ops.MAX_WINDOW_ID


def test_error_kinds_are_the_vectors():
    from deskgate_runtime import errors
    kinds = {"bad_args"} | {cls.kind for cls in vars(errors).values()
                            if isinstance(cls, type) and issubclass(cls, errors.RuntimeFault)}
    assert kinds == set(VECTORS["error_kinds"])


@pytest.mark.parametrize("v", VECTORS["responses"], ids=lambda v: v["name"])
def test_responses_are_written_byte_for_byte(v):
    r = v["response"]
    if r["ok"]:
        line = protocol.ok(r["id"], r["result"])
    else:
        e = dict(r["error"])
        line = protocol.error(r["id"], e.pop("kind"), e.pop("message"), **e)
    assert line == v["line"].encode("utf-8")


@pytest.fixture(scope="module")
def vector_rt(bare):
    """A runtime of its own on the bare Xvfb (no window manager): what the vectors describe."""
    desk, _ = bare
    assert (desk.env.get("DISPLAY"))
    r = RuntimeProcess(desk)
    yield r
    r.proc.terminate()
    r.proc.wait(5)


def test_the_runtime_answers_the_vector_requests(vector_rt):
    for v in VECTORS["requests"]:
        vector_rt.send_raw(v["line"].encode("utf-8") + b"\n")
        resp = vector_rt.read()
        assert resp["id"] == v["request"].get("id"), (v["name"], resp)
        if v["answer"] == "ok":
            assert resp["ok"], (v["name"], resp)
            like = next((r["response"] for r in VECTORS["responses"]
                         if r["op"] == v["request"]["op"] and r["response"]["ok"]), None)
            if like is not None:
                # `facts` comes only with input judged on reported facts (guard.py)
                assert sorted(resp["result"]) == sorted(k for k in like["result"]
                                                        if k != "facts"), (v["name"], resp)
        else:
            assert not resp["ok"] and resp["error"]["kind"] == v["answer"], (v["name"], resp)
    assert vector_rt.call("release_all") == {}


def test_the_runtime_refuses_the_vector_lines(vector_rt):
    for v in VECTORS["invalid"]:
        if "oversized" in v:
            o = v["oversized"]
            line = o["prefix"].encode() + b"a" * (o["length"] - len(o["prefix"]))
        else:
            line = v["line"].encode("utf-8")
        vector_rt.send_raw(line + b"\n")
        resp = vector_rt.read()
        assert resp["ok"] is False, (v["name"], resp)
        assert (resp["id"], resp["error"]["kind"]) == (v["id"], v["kind"]), (v["name"], resp)
    assert vector_rt.call("ping") == {}
