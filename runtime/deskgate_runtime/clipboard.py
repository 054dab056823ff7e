"""The CLIPBOARD selection, owned and read by a thread with its own X connection.

Owning a selection means answering SelectionRequest events for as long as we own it, so a
small thread keeps a hidden window and serves them (UTF8_STRING, STRING, TARGETS, TIMESTAMP;
INCR for large text). Reads go through the same thread: ConvertSelection, then the property.
"""
import concurrent.futures
import logging
import os
import queue
import select
import threading
import time

from Xlib import X, Xatom, display as xdisplay, error as xerror
from Xlib.protocol import event

from .errors import DisplayError, X11Error

log = logging.getLogger(__name__)

INCR_CHUNK = 64 * 1024       # bytes per INCR step, well under the core request limit
INCR_THRESHOLD = 192 * 1024  # larger text is sent with INCR
READ_TIMEOUT_S = 3.0
TEXT_TARGETS = ("UTF8_STRING", "text/plain;charset=utf-8", "STRING", "TEXT", "text/plain")


class Clipboard:
    def __init__(self, display_name):
        self._name = display_name
        self._thread = None
        self._lock = threading.Lock()

    def _owner(self):
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = _OwnerThread(self._name)
                self._thread.start()
                self._thread.ready.result(timeout=5)
        return self._thread

    def write(self, text):
        return self._owner().submit("write", text.encode("utf-8"))

    def read(self):
        data = self._owner().submit("read", None)
        return None if data is None else data.decode("utf-8", "replace")

    def close(self):
        if self._thread is not None:
            self._thread.stop()


class _OwnerThread(threading.Thread):
    def __init__(self, display_name):
        super().__init__(name="clipboard", daemon=True)
        self._name = display_name
        self.ready = concurrent.futures.Future()
        self._commands = queue.Queue()
        self._wake_r, self._wake_w = os.pipe()
        self._data = None         # bytes we serve while we own CLIPBOARD
        self._owned_since = None  # our selection timestamp
        self._incr = {}           # (requestor id, property) -> remaining bytes
        self._stopping = False

    # -- called from the main thread ----------------------------------------------------
    def submit(self, kind, arg):
        fut = concurrent.futures.Future()
        self._commands.put((kind, arg, fut))
        os.write(self._wake_w, b"x")
        return fut.result(timeout=READ_TIMEOUT_S + 2)

    def stop(self):
        self._stopping = True
        os.write(self._wake_w, b"x")

    # -- the thread -----------------------------------------------------------------------
    def run(self):
        try:
            self.d = xdisplay.Display(self._name)
            self.d.set_error_handler(lambda err, req=None: log.debug("clipboard X error %s", err))
            self.win = self.d.screen().root.create_window(
                -10, -10, 1, 1, 0, X.CopyFromParent, event_mask=X.PropertyChangeMask)
            self.a = {n: self.d.intern_atom(n) for n in (
                "CLIPBOARD", "TARGETS", "TIMESTAMP", "INCR", "MULTIPLE", "DESKGATE_CLIP",
                *TEXT_TARGETS)}
            self.d.sync()
        except Exception as e:
            self.ready.set_exception(DisplayError(f"clipboard connection failed: {e}"))
            return
        self.ready.set_result(True)
        while not self._stopping:
            try:
                self._serve_once(timeout=None)
            except (xerror.ConnectionClosedError, OSError) as e:
                log.warning("clipboard connection lost: %s", e)
                break
            except Exception:  # one bad event must not stop the selection owner
                log.exception("clipboard event handling failed")
        self._fail_pending(DisplayError("clipboard thread stopped"))
        try:
            self.d.close()
        except Exception:
            pass

    def _serve_once(self, timeout):
        if not self.d.pending_events():
            readable, _, _ = select.select([self.d.fileno(), self._wake_r], [], [], timeout)
            if self._wake_r in readable:
                os.read(self._wake_r, 4096)
                self._run_commands()
        while self.d.pending_events():
            self._handle(self.d.next_event())

    def _fail_pending(self, exc):
        while not self._commands.empty():
            self._commands.get()[2].set_exception(exc)

    def _run_commands(self):
        while not self._commands.empty():
            kind, arg, fut = self._commands.get()
            try:
                fut.set_result(self._write(arg) if kind == "write" else self._read())
            except Exception as e:
                fut.set_exception(e)

    def _handle(self, ev, waiting_for=None):
        if ev.type == X.SelectionRequest:
            self._answer(ev)
        elif ev.type == X.SelectionClear and ev.atom == self.a["CLIPBOARD"]:
            self._data = None
        elif ev.type == X.PropertyNotify and ev.state == X.PropertyDelete:
            self._incr_next(ev)
        return waiting_for(ev) if waiting_for else None

    def _wait_event(self, matches, timeout):
        deadline = time.monotonic() + timeout
        while True:
            while self.d.pending_events():
                ev = self.d.next_event()
                if self._handle(ev, matches):
                    return ev
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            select.select([self.d.fileno()], [], [], left)

    def _server_time(self):
        self.win.change_property(self.a["DESKGATE_CLIP"], Xatom.STRING, 8, b"", X.PropModeAppend)
        self.d.flush()
        ev = self._wait_event(lambda e: e.type == X.PropertyNotify and e.window == self.win,
                              READ_TIMEOUT_S)
        return ev.time if ev else X.CurrentTime

    # -- owning -------------------------------------------------------------------------
    def _write(self, data):
        stamp = self._server_time()
        self.win.set_selection_owner(self.a["CLIPBOARD"], stamp)
        if _wid(self.d.get_selection_owner(self.a["CLIPBOARD"])) != self.win.id:
            raise X11Error("could not take ownership of the CLIPBOARD selection")
        self._data, self._owned_since = data, stamp
        return None

    def _answer(self, ev):
        prop = ev.property or ev.target  # obsolete clients may pass None
        target = ev.target
        requestor = ev.requestor
        if self._data is None or ev.selection != self.a["CLIPBOARD"]:
            prop = X.NONE
        elif target == self.a["TARGETS"]:
            targets = [self.a["TARGETS"], self.a["TIMESTAMP"]] + [self.a[t] for t in TEXT_TARGETS]
            requestor.change_property(prop, Xatom.ATOM, 32, targets)
        elif target == self.a["TIMESTAMP"]:
            requestor.change_property(prop, Xatom.INTEGER, 32, [self._owned_since])
        elif target in (self.a[t] for t in TEXT_TARGETS):
            type_ = Xatom.STRING if target == self.a["STRING"] else target
            if target == self.a["TEXT"]:
                type_ = self.a["UTF8_STRING"]
            if len(self._data) > INCR_THRESHOLD:
                requestor.change_attributes(event_mask=X.PropertyChangeMask)
                requestor.change_property(prop, self.a["INCR"], 32, [len(self._data)])
                self._incr[(requestor.id, prop)] = (type_, memoryview(self._data))
            else:
                requestor.change_property(prop, type_, 8, self._data)
        else:
            prop = X.NONE
        reply = event.SelectionNotify(time=ev.time, requestor=requestor, selection=ev.selection,
                                      target=target, property=prop)
        requestor.send_event(reply, event_mask=0)
        self.d.flush()

    def _incr_next(self, ev):
        key = (ev.window.id, ev.atom)
        if key not in self._incr:
            return
        type_, rest = self._incr[key]
        chunk, rest = rest[:INCR_CHUNK], rest[INCR_CHUNK:]
        ev.window.change_property(ev.atom, type_, 8, bytes(chunk))
        if len(chunk):
            self._incr[key] = (type_, rest)
        else:
            del self._incr[key]  # the zero-length chunk ends the transfer
        self.d.flush()

    # -- reading ------------------------------------------------------------------------
    def _read(self):
        owner = _wid(self.d.get_selection_owner(self.a["CLIPBOARD"]))  # not a stale belief
        if owner == self.win.id and self._data is not None:
            return self._data
        self._data = None if owner != self.win.id else self._data
        if owner == X.NONE:
            return None
        for target in ("UTF8_STRING", "STRING"):
            data = self._convert(self.a[target])
            if data is not None:
                return data
        return None

    def _convert(self, target):
        prop = self.a["DESKGATE_CLIP"]
        self.win.delete_property(prop)
        self.win.convert_selection(self.a["CLIPBOARD"], target, prop, X.CurrentTime)
        self.d.flush()
        ev = self._wait_event(lambda e: e.type == X.SelectionNotify, READ_TIMEOUT_S)
        if ev is None or ev.property == X.NONE:
            return None
        p = self.win.get_full_property(prop, X.AnyPropertyType)
        self.win.delete_property(prop)
        self.d.flush()
        if p is None:
            return None
        if p.property_type != self.a["INCR"]:
            return _bytes(p.value)
        parts = []
        while True:  # each new value is a chunk; a zero-length one ends it
            ev = self._wait_event(lambda e: e.type == X.PropertyNotify and e.atom == prop
                                  and e.state == X.PropertyNewValue, READ_TIMEOUT_S)
            if ev is None:
                raise X11Error("clipboard owner stopped sending its INCR transfer")
            p = self.win.get_full_property(prop, X.AnyPropertyType)
            self.win.delete_property(prop)
            self.d.flush()
            chunk = _bytes(p.value) if p is not None else b""
            if not chunk:
                return b"".join(parts)
            parts.append(chunk)


def _bytes(value):
    return value if isinstance(value, bytes) else bytes(value)


def _wid(win):
    return win if isinstance(win, int) else win.id
