"""A private desktop for the tests: Xvfb + openbox + the probe app + one runtime process."""
import json
import os
import queue
import random
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from Xlib import X, XK, Xatom

RUNTIME_DIR = Path(__file__).resolve().parents[1]
REPO = RUNTIME_DIR.parent
PROBE_APP = REPO / "tests" / "probe" / "probe_app.py"
PYTHON = "/usr/bin/python3"
PROBE_CLASS = "DeskgateProbe"


# Names for the tests' own key chords. The runtime takes keysyms only: the core parses names.
TEST_KEY_NAMES = {"ctrl": "Control_L", "alt": "Alt_L", "shift": "Shift_L", "meta": "Super_L",
                  "enter": "Return"}


def chords(spec):
    """'ctrl+a BackSpace' -> [[Control_L, a], [BackSpace]] as keysym numbers."""
    out = []
    for chord in spec.split():
        keysyms = []
        for name in chord.split("+"):
            keysym = XK.string_to_keysym(TEST_KEY_NAMES.get(name, name))
            if not keysym and len(name) == 1:
                keysym = ord(name) if ord(name) < 0x100 else 0x01000000 + ord(name)
            assert keysym, f"test key name {name!r}"
            keysyms.append(keysym)
        out.append(keysyms)
    return out


def keyboard_map(display):
    """The X server's whole core keyboard map, read over a connection of its own."""
    from Xlib import display as xdisplay
    d = xdisplay.Display(display)
    try:
        info = d.display.info
        return [list(r) for r in d.get_keyboard_mapping(
            info.min_keycode, info.max_keycode - info.min_keycode + 1)]
    finally:
        d.close()


def wait_until(predicate, timeout=5.0, interval=0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()


def _unused_display():
    """A display number with no lock file and no socket (path or abstract) on this machine."""
    used = {int(m) for m in re.findall(r"X(\d+)", " ".join(os.listdir("/tmp/.X11-unix")))
            } if os.path.isdir("/tmp/.X11-unix") else set()
    used |= {int(m) for m in re.findall(r"\.X(\d+)-lock", " ".join(os.listdir("/tmp")))}
    with open("/proc/net/unix") as f:
        used |= {int(m) for m in re.findall(r"/tmp/\.X11-unix/X(\d+)", f.read())}
    return random.choice([n for n in range(200, 1000) if n not in used])


class Desktop:
    def __init__(self, tmp, wm=True):
        self.tmp = tmp
        self.procs = []
        try:
            self._start(wm)
        except BaseException:
            self.close()
            raise

    def _start(self, wm):
        # -displayfd: Xvfb reports its display once it accepts clients. The number is ours to
        # pick: one that no X server on this machine uses, by lock file or by socket (a server
        # started without a lock file elsewhere would otherwise share its number with ours, and
        # clients would reach whichever answers first).
        for _ in range(5):
            number = _unused_display()
            read_fd, write_fd = os.pipe()
            xvfb = self._spawn(["Xvfb", f":{number}", "-displayfd", str(write_fd), "-screen", "0",
                                "1280x800x24", "-nolisten", "tcp"], "xvfb", pass_fds=(write_fd,))
            os.close(write_fd)
            with os.fdopen(read_fd) as f:
                reported = f.readline().strip()
            if reported == str(number) and xvfb.poll() is None:
                break
        assert reported and xvfb.poll() is None, "Xvfb did not start: see xvfb.log"
        self.display = f":{number}"
        self.env = dict(os.environ, DISPLAY=self.display)
        assert wait_until(lambda: self._has_root_prop("WM_NAME") is not None, 10), \
            f"cannot connect to Xvfb on {self.display}"
        if not wm:
            return
        # openbox occasionally fails to open a just-started display ("Failed to open the display
        # from the DISPLAY environment variable"; a fresh machine's run saw it three times in a
        # row while xprop had just connected): tried again, further apart each time.
        for attempt in range(5):
            if attempt:
                time.sleep(0.25 * 2 ** attempt)  # 0.5, 1, 2, 4 s
            openbox = self._spawn(["openbox", "--sm-disable"], "openbox")
            if wait_until(lambda: openbox.poll() is not None
                          or self._has_root_prop("_NET_SUPPORTING_WM_CHECK"), 20) \
                    and openbox.poll() is None and self._wm_manages_windows():
                return
            if openbox.poll() is None:  # up but not managing windows: not left beside the next one
                openbox.terminate()
                openbox.wait(5)
        reachable = self._has_root_prop("WM_NAME") is not None
        raise AssertionError(f"openbox did not start (xprop {'reaches' if reachable else 'cannot reach'} "
                             f"{self.display}): " + (self.tmp / "openbox.log").read_text())

    def _wm_manages_windows(self, timeout=10.0):
        """openbox announces itself before its event loop runs, and a window mapped in between
        can stay unmapped for good (seen under load): wait until it frames a window of ours."""
        from Xlib import display as xdisplay
        d = xdisplay.Display(self.display)
        try:
            root = d.screen().root
            win = root.create_window(0, 0, 10, 10, 0, X.CopyFromParent, X.InputOutput,
                                     X.CopyFromParent)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                win.map()  # again each round: a map request openbox dropped is gone
                d.sync()
                if wait_until(lambda: win.query_tree().parent.id != root.id, 0.5):
                    win.destroy()
                    d.sync()
                    return True
            return False
        finally:
            d.close()

    def _has_root_prop(self, name):
        """True/False when the server answered, None when xprop could not connect."""
        r = subprocess.run(["xprop", "-root", name], env=dict(os.environ, DISPLAY=self.display),
                           capture_output=True, text=True)
        if r.returncode != 0:
            return None
        return "not found" not in r.stdout and "no such" not in r.stdout

    def _spawn(self, argv, name, **kw):
        log = open(self.tmp / f"{name}.log", "ab")
        env = kw.pop("env", None) or getattr(self, "env", None) or os.environ
        proc = subprocess.Popen(argv, stdout=kw.pop("stdout", log), stderr=log, env=env, **kw)
        self.procs.append(proc)
        return proc

    def close(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


class Probe:
    def __init__(self, desktop, name="probe", **opts):
        self.path = desktop.tmp / f"{name}-events.jsonl"
        argv = [PYTHON, str(PROBE_APP), "--events", str(self.path)]
        for k, v in opts.items():
            argv += [f"--{k}", str(v)]
        self.proc = desktop._spawn(argv, name)
        self.ready = self.wait_for(lambda e: e["type"] == "ready", since=0, timeout=15)
        assert self.ready, "probe app did not become ready"

    def events(self, since=0):
        if not self.path.exists():
            return []
        data = self.path.read_bytes()
        lines = data[:data.rfind(b"\n") + 1].decode("utf-8").split("\n")[:-1]  # whole lines only
        return [json.loads(line) for line in lines[since:] if line.strip()]

    def mark(self):
        return len(self.events())

    def wait_for(self, predicate, since, timeout=5.0):
        return wait_until(lambda: next((e for e in self.events(since) if predicate(e)), None),
                          timeout)

    def text_value(self, since=0):
        values = [e["value"] for e in self.events(since) if e["type"] == "text"]
        return values[-1] if values else None

    def wait_text(self, expected, since, timeout=10.0):
        return wait_until(lambda: self.text_value(since) == expected, timeout)

    def center(self, part):
        b = self.ready[part]
        return b["x"] + b["width"] // 2, b["y"] + b["height"] // 2


class RuntimeProcess:
    """The runtime under test, spoken to over its real stdin/stdout protocol."""

    def __init__(self, desktop, display=None, env=None):
        self.proc = subprocess.Popen(
            [PYTHON, "-m", "deskgate_runtime", "--display", display or desktop.display],
            cwd=RUNTIME_DIR, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=open(desktop.tmp / "runtime.log", "ab"), env=env or desktop.env)
        desktop.procs.append(self.proc)
        self._lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self._next_id = 0

    def _pump(self):
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read(self, timeout=30):
        line = self._lines.get(timeout=timeout)
        assert line is not None, "runtime closed stdout"
        return json.loads(line)

    def request(self, op, **params):
        self._next_id += 1
        rid = self._next_id
        self.send_raw((json.dumps({"id": rid, "op": op, **params}) + "\n").encode())
        resp = self.read()
        assert resp["id"] == rid, resp
        return resp

    def call(self, op, **params):
        resp = self.request(op, **params)
        assert resp["ok"], resp
        return resp["result"]

    def error(self, op, **params):
        resp = self.request(op, **params)
        assert not resp["ok"], resp
        return resp["error"]


@pytest.fixture(scope="session")
def desktop(tmp_path_factory):
    for tool in ("Xvfb", "openbox", "xprop"):
        if not shutil.which(tool):
            pytest.skip(f"{tool} is not installed")
    d = Desktop(tmp_path_factory.mktemp("desktop"))
    yield d
    d.close()


@pytest.fixture(scope="session")
def probe(desktop):
    return Probe(desktop, geometry="800x600+0+0", color="#3366cc", **{"class": PROBE_CLASS})


@pytest.fixture(scope="session")
def rt(desktop, probe):
    r = RuntimeProcess(desktop)
    assert r.call("check")["xtest"] is True
    return r


@pytest.fixture
def focused(rt, probe):
    """The probe window active and its Text widget holding the keyboard focus, empty."""
    return focus_text(rt, probe, PROBE_CLASS)


def focus_text(rt, probe, wm_class):
    """Activate the probe window of class `wm_class`, focus its Text widget and empty it."""
    win = next(w for w in rt.call("list_windows")["windows"]
               if w["wm_class"] and w["wm_class"][1] == wm_class)
    rt.call("activate", window=win["id"])
    since = probe.mark()
    x, y = probe.center("text")
    rt.call("click", x=x, y=y, button="left", count=1)
    rt.call("key", chords=chords("ctrl+a"))
    rt.call("key", chords=chords("BackSpace"))
    # Wait for the probe to have recorded all of that, so tests start from a quiet log.
    assert probe.wait_for(lambda e: e["type"] == "key_release" and e["keysym"] == "BackSpace",
                          since)
    if probe.text_value() not in ("", None):
        assert probe.wait_text("", since), "could not clear the probe's text"
    return win


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    """A second X server without a window manager, and a runtime on it."""
    desk = Desktop(tmp_path_factory.mktemp("bare"), wm=False)
    try:
        yield desk, RuntimeProcess(desk)
    finally:
        desk.close()


def make_window(d, parent, x, y, w, h, name=None, wm_class=None, border=0, **attrs):
    win = parent.create_window(x, y, w, h, border, X.CopyFromParent, X.InputOutput,
                               X.CopyFromParent, **attrs)
    if name is not None:
        set_title(d, win, name)
    if wm_class is not None:
        win.set_wm_class(*wm_class)
    return win


def set_title(d, win, name):
    win.set_wm_name(name.encode("latin-1", "replace"))
    win.change_property(d.intern_atom("_NET_WM_NAME"), d.intern_atom("UTF8_STRING"), 8,
                        name.encode())


def set_stacking(d, wins):
    d.screen().root.change_property(d.intern_atom("_NET_CLIENT_LIST_STACKING"), Xatom.WINDOW,
                                    32, [w.id for w in wins])
