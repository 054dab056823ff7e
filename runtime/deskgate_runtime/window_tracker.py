"""Top-level client windows kept up to date from X events.

The gates ask for the window list and the active window before every action. Instead of
reading them from the server each time, the tracker listens to the events that announce a
change, and re-reads only what an event made stale:
- the client list (`_NET_CLIENT_LIST_STACKING`) and the active window: PropertyNotify on the
  root; without an EWMH window manager, the root's children: SubstructureNotify on the root;
- a client's root position, size and viewability: Configure/Gravity/Map/Unmap/Reparent/Destroy
  on the client *and on each ancestor up to the root* (a reparenting window manager moves the
  frame, not the client);
- its title: PropertyNotify of `_NET_WM_NAME`/`WM_NAME`; its WM_CLASS, pid and executable:
  PropertyNotify of `WM_CLASS`/`_NET_WM_PID`.
Events only mark state stale: the values always come from the same requests a full query
makes, all stale parts in one pipelined batch (one round trip).

Freshness: `refresh()` sends one request as a sync point (the caller's pointer query, or
GetInputFocus). Its reply comes after every event the server generated before it; once those
events are applied and what they made stale is read, the answer reflects everything that
happened before the sync point, as a full query would.
"""
from Xlib import X, Xatom, error as xerror
from Xlib.protocol import request

from .errors import X11Error
from .identity import ResPid, exe_of, title_of, wm_class_of
from .xconn import describe as describe_error

GONE = ("BadWindow", "BadDrawable", "BadMatch")
PROP_LONGS = 1 << 16  # one read gets a property of up to 256 KiB
ROOT_MASK = X.PropertyChangeMask | X.SubstructureNotifyMask
CLIENT_MASK = X.StructureNotifyMask | X.PropertyChangeMask
ANCESTOR_MASK = X.StructureNotifyMask
STRUCTURE_EVENTS = (X.ConfigureNotify, X.GravityNotify, X.MapNotify, X.UnmapNotify,
                    X.ReparentNotify, X.DestroyNotify)
ROOT_CHILDREN_EVENTS = (X.CreateNotify, X.DestroyNotify, X.ReparentNotify, X.ConfigureNotify,
                        X.CirculateNotify)
WATCHED_EVENTS = frozenset(STRUCTURE_EVENTS + ROOT_CHILDREN_EVENTS)
GEOMETRY, TITLE, IDENTITY, CHAIN = "geometry", "title", "identity", "chain"
STACKING, ACTIVE, CHILDREN = "stacking", "active", "children"


class Batch:
    """Deferred requests: python-xlib sends them all with the first reply() and the server
    answers in order, so the whole batch costs one round trip."""

    def __init__(self, x):
        self.x = x
        self.items = []

    def add(self, req, then, gone):
        """`then(reply)` once answered; `gone()` instead if the window no longer exists."""
        self.items.append((req, then, gone))

    def run(self, what):
        items, self.items = self.items, []
        if not items:
            return
        with self.x.checked(what, sync=False):
            for req, then, gone in items:
                try:
                    req.reply()
                    then(req)
                except xerror.XError as e:
                    if type(e).__name__ not in GONE:
                        raise
                    gone()


class Client:
    """What we know of one top-level client window; `stale` parts are read on refresh."""

    def __init__(self, wid):
        self.id = wid
        self.chain = []  # the client and its ancestors below the root: their events matter
        self.geometry = self.title = self.identity = None
        self.stale = {CHAIN, GEOMETRY, TITLE, IDENTITY}
        self.gone = False

    def info(self):
        wm_class, pid, exe = self.identity
        return {"window": self.id, "title": self.title, "wm_class": wm_class, "pid": pid,
                "exe": exe}


class WindowTracker:
    def __init__(self, x):
        self.x = x
        self.d = x.display.display  # the protocol connection that deferred requests go to
        self.root = x.root.id
        self.res_pid = ResPid(x)
        self.atoms = {name: x.atom(name) for name in (
            "_NET_CLIENT_LIST_STACKING", "_NET_ACTIVE_WINDOW", "_NET_WM_NAME", "UTF8_STRING",
            "_NET_WM_PID")}
        self._prop_parts = {self.atoms["_NET_WM_NAME"]: TITLE, Xatom.WM_NAME: TITLE,
                            Xatom.WM_CLASS: IDENTITY, self.atoms["_NET_WM_PID"]: IDENTITY}
        self.stacking = None  # _NET_CLIENT_LIST_STACKING, bottom to top; None without one
        self.active = None    # _NET_ACTIVE_WINDOW's value
        self.children = []    # the root's children, bottom to top (used without EWMH)
        self.stale = {STACKING, ACTIVE, CHILDREN}
        self.clients = {}     # window id -> Client, for every candidate window
        self._watchers = {}   # window id -> ids of the clients whose geometry depends on it
        self._masks = {self.root: ROOT_MASK}  # window id -> the event mask we selected on it
        self._lost = []       # failed event selections: (window id, client, error)
        x.event_listeners.append(self._on_event)
        with x.checked("watch the root window"):
            x.root.change_attributes(event_mask=ROOT_MASK)

    # -- events -------------------------------------------------------------------------
    def _on_event(self, ev):
        if ev.type == X.PropertyNotify:
            wid = ev.window.id
            if wid == self.root:
                if ev.atom == self.atoms["_NET_CLIENT_LIST_STACKING"]:
                    self.stale.add(STACKING)
                elif ev.atom == self.atoms["_NET_ACTIVE_WINDOW"]:
                    self.stale.add(ACTIVE)
            elif wid in self.clients and ev.atom in self._prop_parts:
                self.clients[wid].stale.add(self._prop_parts[ev.atom])
            return
        if ev.type not in WATCHED_EVENTS or ev.send_event:
            return  # synthetic events (ICCCM's "your frame moved" notice) change nothing
        parent = ev.parent if ev.type == X.CreateNotify else ev.event
        if parent.id == self.root and ev.type in ROOT_CHILDREN_EVENTS:
            self.stale.add(CHILDREN)
        if ev.type not in STRUCTURE_EVENTS:
            return
        wid = ev.window.id
        for cid in self._watchers.get(wid, ()):
            client = self.clients.get(cid)
            if client is None:
                continue
            client.stale.add(GEOMETRY)
            if ev.type == X.ReparentNotify or (ev.type == X.DestroyNotify and cid != wid):
                client.stale.add(CHAIN)
        if ev.type == X.DestroyNotify:
            self._masks.pop(wid, None)
            if wid in self.clients:
                self.clients[wid].gone = True

    def _select(self, wid, mask, client):
        """Add `mask` to our event selection on a window (a client has one mask per window)."""
        have = self._masks.get(wid, 0)
        if have | mask == have:
            return

        def failed(err, req):
            self._lost.append((wid, client, err))
            return True  # handled here, not an error of the surrounding batch
        self._masks[wid] = have | mask
        request.ChangeWindowAttributes(display=self.d, window=wid,
                                       attrs={"event_mask": have | mask}, onerror=failed)

    def watch(self, wid, mask):
        """Add `mask` to our event selection on any window, now (X11Error if that fails).
        StructureNotify comes with it, so a DestroyNotify clears the entry again."""
        have = self._masks.get(wid, 0)
        mask |= have | X.StructureNotifyMask
        if mask != have:
            with self.x.checked(f"select events on window 0x{wid:x}"):
                request.ChangeWindowAttributes(display=self.d, window=wid,
                                               attrs={"event_mask": mask})
            self._masks[wid] = mask

    # -- refreshing ---------------------------------------------------------------------
    def refresh(self, first=()):
        """Bring the state up to date as of one sync point; return the first requests, answered.

        `first` are deferred requests (that cannot fail) sent ahead of everything else; the
        first of them is the sync point (default: a GetInputFocus). The parts already known to
        be stale (the server loop applies the queued events before every request) are read in
        the same batch, after them; with nothing stale, this is one round trip.
        """
        first = list(first) or [request.GetInputFocus(display=self.d, defer=True)]
        self._read_stale(first)
        # Events that came in with those replies may predate the sync point: read again what
        # they made stale (or events from after it did: harmless).
        self.x.drain_events()
        self._read_stale(())
        return first

    def _read_stale(self, first):
        batch = Batch(self.x)
        for req in first:
            batch.add(req, lambda r: None, lambda: None)
        for part in (STACKING, ACTIVE):
            if part in self.stale:
                self._read_root_prop(batch, part)
        for client in self.clients.values():
            if CHAIN not in client.stale:  # else read after walking up (below)
                self._read_client(batch, client)
        batch.run("read window state")
        if self.stacking is None and CHILDREN in self.stale:
            def then(r):
                self.children = [w.id for w in r.children]
                self.stale.discard(CHILDREN)
            batch.add(request.QueryTree(display=self.d, defer=True, window=self.root),
                      then, lambda: None)
            batch.run("list the root's children")
        self._reconcile(batch)

    def _reconcile(self, batch):
        """Follow the candidate list: drop windows that left it (or are gone), track new ones."""
        wanted = set(self.candidates())
        for wid in [wid for wid, c in self.clients.items() if c.gone or wid not in wanted]:
            self._forget(self.clients.pop(wid))
        for wid in wanted:
            if wid not in self.clients:
                self.clients[wid] = Client(wid)
        self._walk_chains([c for c in self.clients.values() if CHAIN in c.stale and not c.gone])
        for client in self.clients.values():
            self._read_client(batch, client)
        batch.run("read new windows")

    def candidates(self):
        return self.children if self.stacking is None else self.stacking

    def _forget(self, client):
        for wid in client.chain:
            watchers = self._watchers.get(wid)
            if watchers is not None:
                watchers.discard(client.id)
                if not watchers:
                    del self._watchers[wid]
        client.chain = []

    def _walk_chains(self, clients):
        """Select events on each client and its ancestors, level by level (one round trip per
        level for all clients). Select first, then ask for the parent: a reparent in between
        still arrives as an event. The geometry is read afterwards, for the same reason."""
        for client in clients:
            self._forget(client)
            client.stale.discard(CHAIN)
            client.stale.add(GEOMETRY)
        level = {client: client.id for client in clients}
        while level:
            batch, above = Batch(self.x), {}
            for client, wid in level.items():
                client.chain.append(wid)
                self._watchers.setdefault(wid, set()).add(client.id)
                self._select(wid, CLIENT_MASK if wid == client.id else ANCESTOR_MASK, client)

                def then(r, client=client):
                    # (The root's parent is None: anyone may write the root into the list.)
                    if not isinstance(r.parent, int) and r.parent.id != self.root:
                        above[client] = r.parent.id

                def gone(client=client, wid=wid):
                    self._lost_window(client, wid)
                batch.add(request.QueryTree(display=self.d, defer=True, window=wid), then, gone)
            batch.run("walk up from client windows")
            lost, self._lost = self._lost, []
            for wid, client, err in lost:
                if type(err).__name__ not in GONE:
                    raise X11Error(f"select events on window 0x{wid:x}: {describe_error(err)}",
                                   type(err).__name__)
                self._masks.pop(wid, None)
                self._lost_window(client, wid)
            level = {c: wid for c, wid in above.items() if not c.gone}

    @staticmethod
    def _lost_window(client, wid):
        if wid == client.id:
            client.gone = True
        else:  # an ancestor vanished under us: walk up again on the next refresh
            client.stale.add(CHAIN)

    # -- reading ------------------------------------------------------------------------
    def prop_request(self, wid, atom, type_):
        return request.GetProperty(display=self.d, defer=True, delete=False, window=wid,
                                   property=atom, type=type_, long_offset=0, long_length=PROP_LONGS)

    def prop_value(self, wid, atom, type_, reply):
        """The property's value as Window.get_full_property(...).value gives it, or None."""
        if reply.property_type == X.NONE:
            return None
        if reply.bytes_after:  # larger than one read, or of another type: as a full query does
            prop = self.x.display.create_resource_object("window", wid).get_full_property(
                atom, type_)
            return prop.value if prop is not None else None
        return reply.value[1]

    def _read_root_prop(self, batch, part):
        atom = self.atoms["_NET_CLIENT_LIST_STACKING" if part == STACKING else "_NET_ACTIVE_WINDOW"]

        def then(r):
            value = self.prop_value(self.root, atom, Xatom.WINDOW, r)
            setattr(self, part, None if value is None else list(value))
            self.stale.discard(part)
        batch.add(self.prop_request(self.root, atom, Xatom.WINDOW), then, lambda: None)

    def _read_client(self, batch, client):
        """Queue reads of the stale parts of one client. A part is marked fresh when its read
        is answered; events that arrive meanwhile are applied later, and make it stale again."""
        if client.gone:
            return

        def gone():
            client.gone = True
        for part in client.stale - {CHAIN}:
            def store(value, part=part):
                setattr(client, part, value)
                client.stale.discard(part)
            self.add_reads(batch, client.id, part, store, gone)

    def add_reads(self, batch, wid, part, store, gone):
        """Queue the requests that read one part of a window; `store` gets the value."""
        if part == GEOMETRY:
            geo = request.GetGeometry(display=self.d, defer=True, drawable=wid)
            pos = request.TranslateCoords(display=self.d, defer=True, src_wid=wid,
                                          dst_wid=self.root, src_x=0, src_y=0)
            attrs = request.GetWindowAttributes(display=self.d, defer=True, window=wid)
            batch.add(geo, lambda r: None, gone)
            batch.add(pos, lambda r: None, gone)
            batch.add(attrs, lambda r: store((pos.x, pos.y, geo.width, geo.height,
                                              r.map_state == X.IsViewable,
                                              bool(r.override_redirect))), gone)
        elif part == TITLE:
            net_atom, utf8 = self.atoms["_NET_WM_NAME"], self.atoms["UTF8_STRING"]
            net = self.prop_request(wid, net_atom, utf8)
            plain = self.prop_request(wid, Xatom.WM_NAME, X.AnyPropertyType)
            batch.add(net, lambda r: None, gone)
            batch.add(plain, lambda r: store(title_of(
                self.prop_value(wid, net_atom, utf8, net) if net.property_type != X.NONE
                else self.prop_value(wid, Xatom.WM_NAME, X.AnyPropertyType, r))), gone)
        elif part == IDENTITY:
            pid_atom = self.atoms["_NET_WM_PID"]
            wm_class = self.prop_request(wid, Xatom.WM_CLASS, Xatom.STRING)
            pid = self.prop_request(wid, pid_atom, Xatom.CARDINAL)
            batch.add(wm_class, lambda r: None, gone)
            batch.add(pid, lambda r: store(self._identity(
                wid, self.prop_value(wid, Xatom.WM_CLASS, Xatom.STRING, wm_class),
                self.prop_value(wid, pid_atom, Xatom.CARDINAL, r))), gone)

    def _identity(self, wid, wm_class, pid_value):
        pid = int(pid_value[0]) if pid_value is not None and len(pid_value) else None
        if pid is None:  # many toolkits (Tk, for one) never set _NET_WM_PID
            pid = self.res_pid.ask(wid)
        return wm_class_of(wm_class), pid, exe_of(pid)

    # -- answers (as of the last refresh) -----------------------------------------------
    def is_client(self, client):
        """A managed top-level client: listed by the window manager, or without one, a child
        of the root that carries WM_CLASS and is not override-redirect (a menu, a tooltip)."""
        if client is None or client.gone:
            return False
        if self.stacking is not None:
            return True
        return bool(client.identity[0]) and not client.geometry[5]

    def client_list(self):
        """The clients that still exist, bottom to top."""
        return [c for c in map(self.clients.get, self.candidates()) if self.is_client(c)]

    def windows(self):
        """The client windows, bottom to top, as `list_windows` reports them."""
        out = []
        for client in self.client_list():
            wid, info = client.id, client.info()
            x, y, width, height, mapped, _ = client.geometry
            out.append({"id": wid, "x": x, "y": y, "width": width, "height": height,
                        "mapped": mapped, "title": info["title"], "wm_class": info["wm_class"],
                        "pid": info["pid"], "exe": info["exe"]})
        return out
