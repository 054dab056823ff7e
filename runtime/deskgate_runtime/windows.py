"""Top-level windows through EWMH/ICCCM: the active window, the window under a point, the
stacking list, and asking the window manager to iconify or activate one."""
from Xlib import X
from Xlib.protocol import event, request

from .errors import NotFound, X11Error
from .window_tracker import GONE, IDENTITY, TITLE, Batch, WindowTracker

ICONIC_STATE = 3
WM_WAIT_S = 0.5
FOCUS_WAIT_S = 0.2
NOBODY = {"window": None, "title": None, "wm_class": None, "pid": None, "exe": None}


class Windows:
    """`list()`, `frontmost()` and `at()` answer from the tracked state as of the last
    `refresh()` (plus what they read themselves)."""

    def __init__(self, x):
        self.x = x
        self.tracker = WindowTracker(x)

    def refresh(self):
        self.tracker.refresh()

    # -- properties ---------------------------------------------------------------------
    def _prop(self, win, name, type_=X.AnyPropertyType):
        with self.x.checked(f"read {name} of window 0x{win.id:x}", sync=False):
            p = win.get_full_property(self.x.atom(name), type_)
        return p.value if p is not None else None

    def describe(self, win):
        """Title, WM_CLASS, pid and executable of a window (all nulls if it is gone): tracked
        windows from memory, others read now."""
        if win is None:
            return dict(NOBODY)
        client = self.tracker.clients.get(win.id)
        if client is not None:
            return dict(NOBODY) if client.gone else client.info()
        info, lost = {"window": win.id}, []
        batch = Batch(self.x)
        self.tracker.add_reads(batch, win.id, TITLE, lambda v: info.update(title=v),
                               lambda: lost.append(True))
        self.tracker.add_reads(batch, win.id, IDENTITY, lambda v: info.update(
            zip(("wm_class", "pid", "exe"), v)), lambda: lost.append(True))
        batch.run(f"describe window 0x{win.id:x}")
        return dict(NOBODY) if lost else info

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
            with self.x.checked("query tree", sync=False):
                queue.extend(w.query_tree().children)
        return None

    def _toplevel_client(self, win):
        """Walk up from any window to its client window."""
        while win is not None and win.id != self.x.root.id:
            if self._has_wm_state(win):
                return win
            with self.x.checked("query tree", sync=False):
                parent = win.query_tree().parent
            if parent.id == self.x.root.id:
                return self._client_inside(win) or win
            win = parent
        return None

    def frontmost(self):
        active = self.tracker.active
        if active and active[0]:
            return self.describe(self.x.display.create_resource_object("window", active[0]))
        # No active window (or no EWMH window manager): the input focus, walked up to its client.
        with self.x.checked("get input focus", sync=False):
            focus = self.x.display.get_input_focus().focus
        if isinstance(focus, int) or focus.id == self.x.root.id:
            return dict(NOBODY)
        try:
            return self.describe(self._toplevel_client(focus))
        except X11Error as e:
            if e.error_name in GONE:
                return dict(NOBODY)
            raise

    def at(self, x, y):
        with self.x.checked("query tree", sync=False):
            children = self.x.root.query_tree().children
        for child in reversed(children):  # top of the stack first
            try:
                with self.x.checked("read window", sync=False):
                    attrs = child.get_attributes()
                    geo = child.get_geometry()
                if attrs.map_state != X.IsViewable or attrs.win_class == X.InputOnly:
                    continue
                b = geo.border_width
                if geo.x <= x < geo.x + geo.width + 2 * b and geo.y <= y < geo.y + geo.height + 2 * b:
                    return self.describe(self._client_inside(child))
            except X11Error as e:
                if e.error_name not in GONE:
                    raise
        return dict(NOBODY)

    def list(self):
        return self.tracker.windows()

    # -- asking the window manager ------------------------------------------------------
    def _window(self, wid):
        win = self.x.display.create_resource_object("window", wid)
        try:
            with self.x.checked(f"window 0x{wid:x}", sync=False):
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
        self.tracker.watch(wid, 0)  # its UnmapNotify wakes the wait
        self._send_to_root(win, "WM_CHANGE_STATE", [ICONIC_STATE])
        self.x.wait_for(lambda: self._window(wid)[1].map_state != X.IsViewable, WM_WAIT_S)

    def activate(self, wid):
        """Map, raise and focus a top-level window; returns once the X input focus is on it
        (or inside it). The window manager is asked first (it raises, de-iconifies and keeps
        its own idea of the active window); if it has not given the focus within
        FOCUS_WAIT_S, the focus is set directly."""
        win, attrs = self._window(wid)
        self.tracker.watch(wid, X.FocusChangeMask)  # its FocusIn wakes the wait
        if attrs.map_state == X.IsUnmapped:
            with self.x.checked(f"map window 0x{wid:x}"):
                win.map()
        if self._prop(self.x.root, "_NET_SUPPORTING_WM_CHECK") is not None:
            self._send_to_root(win, "_NET_ACTIVE_WINDOW", [2, X.CurrentTime, 0])
            if self.x.wait_for(lambda: self._focus_inside(wid), FOCUS_WAIT_S):
                # The window manager names the active window (what frontmost() reports) beside
                # the focus, not always before it: wait for that too, so that a frontmost_app
                # right after this answers with the window it activated.
                self.x.wait_for(lambda: self._named_active(wid), WM_WAIT_S)
                return
        # No EWMH window manager, or it did not focus the window: do it ourselves.
        if not self.x.wait_for(lambda: self._window(wid)[1].map_state == X.IsViewable,
                               FOCUS_WAIT_S):
            raise X11Error(f"window 0x{wid:x} did not become viewable, so it cannot take the "
                           "keyboard focus")
        with self.x.checked(f"raise and focus window 0x{wid:x}"):
            win.configure(stack_mode=X.Above)
            win.set_input_focus(X.RevertToParent, X.CurrentTime)
        if not self._focus_inside(wid):
            raise X11Error(f"window 0x{wid:x} did not keep the keyboard focus")

    def _named_active(self, wid):
        """Whether the window manager's _NET_ACTIVE_WINDOW is `wid`, as of a round trip now."""
        self.tracker.refresh()
        active = self.tracker.active
        return bool(active) and active[0] == wid

    def _focus_inside(self, wid):
        """Whether the X input focus is on window `wid` or a window inside it."""
        with self.x.checked("get input focus", sync=False):
            focus = self.x.display.get_input_focus().focus
        while not isinstance(focus, int) and focus.id != self.x.root.id:
            if focus.id == wid:
                return True
            tree = request.QueryTree(display=self.x.display.display, window=focus.id,
                                     defer=True)
            try:
                with self.x.checked("query tree", sync=False):
                    tree.reply()
            except X11Error as e:
                if e.error_name in GONE:
                    return False
                raise
            focus = tree.parent
        return False
