"""Top-level windows through EWMH/ICCCM: the active window, the window under a point, the
stacking list, and asking the window manager to iconify or activate one."""
import os
import time

from Xlib import X, Xatom
from Xlib.ext import res
from Xlib.protocol import event

from .errors import NotFound, X11Error

GONE = ("BadWindow", "BadDrawable", "BadMatch")
ICONIC_STATE = 3
WM_WAIT_S = 0.5


class Windows:
    def __init__(self, x):
        self.x = x
        self._has_res = x.display.has_extension("X-Resource")
        # A window's identity (WM_CLASS, pid, executable) never changes while it exists, and
        # reading it costs several round trips; the gates ask for it before every action.
        self._identity = {}

    # -- properties ---------------------------------------------------------------------
    def _prop(self, win, name, type_=X.AnyPropertyType):
        with self.x.checked(f"read {name} of window 0x{win.id:x}"):
            p = win.get_full_property(self.x.atom(name), type_)
        return p.value if p is not None else None

    def _title(self, win):
        raw = self._prop(win, "_NET_WM_NAME", self.x.atom("UTF8_STRING"))
        if raw is None:
            raw = self._prop(win, "WM_NAME")
        if raw is None:
            return ""
        return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)

    def _pid(self, win):
        value = self._prop(win, "_NET_WM_PID", Xatom.CARDINAL)
        if value is not None and len(value):
            return int(value[0])
        if self._has_res:  # many toolkits (Tk, for one) never set _NET_WM_PID
            with self.x.checked("X-Resource client pid"):
                reply = self.x.display.res_query_client_ids(
                    [{"client": win.id, "mask": res.LocalClientPIDMask}])
            for cid in reply.ids:
                if cid.spec.mask & res.LocalClientPIDMask and cid.value:
                    return int(cid.value[0])
        return None

    def describe(self, win):
        if win is None:
            return {"window": None, "title": None, "wm_class": None, "pid": None, "exe": None}
        known = self._identity.get(win.id)
        if known is not None:
            return dict(known)
        with self.x.checked(f"read WM_CLASS of window 0x{win.id:x}"):
            wm_class = win.get_wm_class()
        pid = self._pid(win)
        exe = None
        if pid:
            try:
                exe = os.readlink(f"/proc/{pid}/exe")
            except OSError:
                pass
        info = {"window": win.id, "title": self._title(win),
                "wm_class": list(wm_class) if wm_class else None, "pid": pid, "exe": exe}
        if wm_class:  # only settled windows: a client sets WM_CLASS before it maps
            self._identity[win.id] = info
        return dict(info)

    def _describe_or_none(self, win):
        try:
            return self.describe(win)
        except X11Error as e:
            if e.error_name in GONE:
                return self.describe(None)
            raise

    # -- finding clients ----------------------------------------------------------------
    def _has_wm_state(self, win):
        return self._prop(win, "WM_STATE") is not None

    def _client_inside(self, win):
        """The ICCCM client window at or below `win` (the one with WM_STATE), like XmuClientWindow."""
        queue = [win]
        while queue:
            w = queue.pop(0)
            if self._has_wm_state(w):
                return w
            with self.x.checked("query tree"):
                queue.extend(w.query_tree().children)
        return None

    def _toplevel_client(self, win):
        """Walk up from any window to its client window."""
        while win is not None and win.id != self.x.root.id:
            if self._has_wm_state(win):
                return win
            with self.x.checked("query tree"):
                parent = win.query_tree().parent
            if parent.id == self.x.root.id:
                return self._client_inside(win) or win
            win = parent
        return None

    def frontmost(self):
        active = self._prop(self.x.root, "_NET_ACTIVE_WINDOW", Xatom.WINDOW)
        if active is not None and len(active) and active[0]:
            return self._describe_or_none(self.x.display.create_resource_object("window", active[0]))
        with self.x.checked("get input focus"):
            focus = self.x.display.get_input_focus().focus
        if isinstance(focus, int) or focus.id == self.x.root.id:
            return self.describe(None)
        try:
            return self._describe_or_none(self._toplevel_client(focus))
        except X11Error as e:
            if e.error_name in GONE:
                return self.describe(None)
            raise

    def at(self, x, y):
        with self.x.checked("query tree"):
            children = self.x.root.query_tree().children
        for child in reversed(children):  # top of the stack first
            try:
                with self.x.checked("read window"):
                    attrs = child.get_attributes()
                    geo = child.get_geometry()
                if attrs.map_state != X.IsViewable or attrs.win_class == X.InputOnly:
                    continue
                b = geo.border_width
                if geo.x <= x < geo.x + geo.width + 2 * b and geo.y <= y < geo.y + geo.height + 2 * b:
                    return self._describe_or_none(self._client_inside(child))
            except X11Error as e:
                if e.error_name not in GONE:
                    raise
        return self.describe(None)

    def list(self):
        stacking = self._prop(self.x.root, "_NET_CLIENT_LIST_STACKING", Xatom.WINDOW)
        if stacking is not None:
            wins = [self.x.display.create_resource_object("window", w) for w in stacking]
        else:  # no EWMH window manager: the root's children that carry WM_CLASS
            with self.x.checked("query tree"):
                wins = [w for w in self.x.root.query_tree().children if w.get_wm_class()]
        out = []
        for win in wins:
            try:
                info = self.describe(win)
                with self.x.checked(f"geometry of window 0x{win.id:x}"):
                    geo = win.get_geometry()
                    pos = self.x.root.translate_coords(win, 0, 0)
                    mapped = win.get_attributes().map_state == X.IsViewable
            except X11Error as e:
                if e.error_name in GONE:
                    continue  # closed while we were listing
                raise
            out.append({"id": info["window"], "x": pos.x, "y": pos.y, "width": geo.width,
                        "height": geo.height, "mapped": mapped, "title": info["title"],
                        "wm_class": info["wm_class"], "pid": info["pid"], "exe": info["exe"]})
        # Forget windows that are gone (X may reuse their ids).
        present = {w["id"] for w in out}
        for wid in [wid for wid in self._identity if wid not in present]:
            del self._identity[wid]
        return out

    # -- asking the window manager ------------------------------------------------------
    def _window(self, wid):
        win = self.x.display.create_resource_object("window", wid)
        try:
            with self.x.checked(f"window 0x{wid:x}"):
                attrs = win.get_attributes()
        except X11Error as e:
            if e.error_name in GONE:
                raise NotFound(f"no window 0x{wid:x}") from None
            raise
        return win, attrs

    def _send_to_root(self, win, message_type, data):
        ev = event.ClientMessage(window=win, client_type=self.x.atom(message_type),
                                 data=(32, (data + [0] * 5)[:5]))
        with self.x.checked(f"send {message_type}"):
            self.x.root.send_event(
                ev, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask)

    def iconify(self, wid):
        win, _ = self._window(wid)
        self._send_to_root(win, "WM_CHANGE_STATE", [ICONIC_STATE])
        self._wait(lambda: self._window(wid)[1].map_state != X.IsViewable)

    def activate(self, wid):
        win, attrs = self._window(wid)
        if attrs.map_state == X.IsUnmapped:
            with self.x.checked(f"map window 0x{wid:x}"):
                win.map()
        if self._prop(self.x.root, "_NET_SUPPORTING_WM_CHECK") is None:
            with self.x.checked(f"raise and focus window 0x{wid:x}"):
                win.configure(stack_mode=X.Above)
                win.set_input_focus(X.RevertToParent, X.CurrentTime)
            return
        self._send_to_root(win, "_NET_ACTIVE_WINDOW", [2, X.CurrentTime, 0])
        self._wait(lambda: (self._prop(self.x.root, "_NET_ACTIVE_WINDOW", Xatom.WINDOW)
                            or [0])[0] == wid)

    @staticmethod
    def _wait(done):
        """Give the window manager a moment to act, so the caller sees the new state."""
        deadline = time.monotonic() + WM_WAIT_S
        while time.monotonic() < deadline and not done():
            time.sleep(0.005)
