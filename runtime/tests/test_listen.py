"""--listen PATH: the same JSON-lines protocol on a Unix socket, one connection at a time."""
import json
import os
import signal
import socket
import stat
import subprocess
import time

import pytest
from Xlib import XK, display as xdisplay

from conftest import PYTHON, RUNTIME_DIR, wait_until


class Listening:
    def __init__(self, desk, path, umask=None):
        self.path = str(path)
        argv = [PYTHON, "-m", "deskgate_runtime", "--display", desk.display, "--listen", self.path]
        self.proc = subprocess.Popen(
            argv, cwd=RUNTIME_DIR, env=desk.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(desk.tmp / "listen.log", "ab"),
            preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)
        desk.procs.append(self.proc)
        assert wait_until(self._connectable, 20), "the runtime never listened"

    def _connectable(self):
        try:
            self.connect().close()
            return True
        except OSError:
            assert self.proc.poll() is None, "runtime exited"
            return False

    def connect(self):
        return Conn(self.path)


class Conn:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(20)
        self.sock.connect(path)
        self.buf = b""

    def send_raw(self, data):
        self.sock.sendall(data)

    def read(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            assert chunk, "runtime closed the connection"
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def request(self, rid, op, **params):
        self.send_raw((json.dumps({"id": rid, "op": op, **params}) + "\n").encode())
        resp = self.read()
        assert resp["id"] == rid, resp
        return resp

    def close(self):
        self.sock.close()


def test_connect_ping_disconnect_reconnect(bare, tmp_path):
    desk, _ = bare
    # A stale socket from a previous run is replaced.
    path = tmp_path / "input.sock"
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(path))
    stale.close()
    h = Listening(desk, path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o660

    a = h.connect()
    assert a.request(1, "ping") == {"id": 1, "ok": True, "result": {}}
    # A second connection waits while the first is served, then gets its answer.
    b = h.connect()
    b.send_raw(b'{"id": "b1", "op": "ping"}\n')
    time.sleep(0.1)
    assert a.request(2, "ping")["ok"]
    a.close()
    assert b.read() == {"id": "b1", "ok": True, "result": {}}
    # Half a line, then the connection closes: the next connection starts clean.
    b.send_raw(b'{"id": "half", "op": "pi')
    b.close()
    c = h.connect()
    assert c.request(3, "ping") == {"id": 3, "ok": True, "result": {}}
    assert c.request(4, "check")["result"]["xtest"] is True
    c.close()

    # SIGTERM: exits 0 promptly and unlinks the socket.
    started = time.monotonic()
    h.proc.send_signal(signal.SIGTERM)
    assert h.proc.wait(5) == 0
    assert time.monotonic() - started < 2
    assert not path.exists()


def test_disconnect_releases_held_keys_and_buttons(bare, tmp_path):
    desk, _ = bare
    h = Listening(desk, tmp_path / "input.sock")
    d = xdisplay.Display(desk.display)
    try:
        shift = d.keysym_to_keycode(XK.string_to_keysym("Shift_L"))

        def shift_down():
            keys = d.query_keymap()
            return bool(keys[shift // 8] & (1 << (shift % 8)))

        def button1_down():
            return bool(d.screen().root.query_pointer().mask & 0x100)

        a = h.connect()
        assert a.request(1, "key_down", chords=[[0xFFE1]])["ok"]
        assert a.request(2, "mouse_down", button="left", x=5, y=5)["ok"]
        assert shift_down() and button1_down()
        a.close()
        assert wait_until(lambda: not shift_down() and not button1_down(), 5), \
            "held input survived the disconnect"
        # The next connection is served normally, and may press the button again.
        b = h.connect()
        assert b.request(3, "mouse_down", button="left")["ok"]
        assert b.request(4, "mouse_up", button="left")["ok"]
        b.close()
    finally:
        d.close()
        h.proc.terminate()
        h.proc.wait(5)


def test_umask_does_not_change_the_mode_and_a_regular_file_is_refused(bare, tmp_path):
    desk, _ = bare
    path = tmp_path / "input.sock"
    h = Listening(desk, path, umask=0o077)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o660
    h.proc.terminate()
    assert h.proc.wait(5) == 0
    assert not path.exists()

    path.write_text("not a socket")
    r = subprocess.run([PYTHON, "-m", "deskgate_runtime", "--display", desk.display,
                        "--listen", str(path)], cwd=RUNTIME_DIR, env=desk.env,
                       capture_output=True, timeout=20)
    assert r.returncode != 0
    assert path.read_text() == "not a socket"


def test_without_a_display_each_connection_gets_display_error(tmp_path):
    path = tmp_path / "input.sock"
    proc = subprocess.Popen([PYTHON, "-m", "deskgate_runtime", "--display", ":4999",
                             "--listen", str(path)], cwd=RUNTIME_DIR,
                            stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(path.exists, 20)
        for rid in (1, 2):
            c = Conn(str(path))
            assert c.request(rid, "ping")["error"]["kind"] == "display_error"
            c.close()
        proc.terminate()
        assert proc.wait(5) == 0
        assert not path.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
