"""What the X server has at a point and holding the keyboard focus: the facts the gates judge.

Nothing here is inferred from the window manager's hints. The server answers:
- at a point: TranslateCoordinates(root -> root) names the topmost mapped child of the root
  there (input shapes included), the window a click would reach. A frame around a tracked
  client is descended into with TranslateCoordinates (one request per level, all in one batch)
  to tell the client from its decoration;
- the focus: GetInputFocus, walked up with QueryTree when it is not a window we know.

Surfaces (`kind`, `window`, `app`):
- client: a tracked top-level client (or a window inside it): `window` the client, `app` its
  identity;
- decoration: inside the window manager's frame of a client but not inside the client:
  `window`/`app` the client it decorates;
- popup: an override-redirect window (menu, dropdown, tooltip): `window` itself, `app` the
  client of the same process (matched by the server's X-Resource pid) when that is one app,
  else its own WM_CLASS/pid/exe;
- root: the bare root window (a click there goes to the desktop, i.e. the window manager);
- none: focus None or PointerRoot (keys would follow the pointer);
- unknown: anything else (the window manager's own windows, unmanaged windows, a window that
  vanished while we looked).
"""
from Xlib import X, Xatom, error as xerror
from Xlib.protocol import request

from .identity import exe_of, title_of, wm_class_of
from .window_tracker import GONE

CLIENT, DECORATION, POPUP, ROOT, NONE, UNKNOWN = (
    "client", "decoration", "popup", "root", "none", "unknown")
BUTTON_MASKS = (("left", 1, X.Button1Mask), ("middle", 2, X.Button2Mask),
                ("right", 3, X.Button3Mask))


def surface(kind, window=None, app=None):
    return {"kind": kind, "window": window, "app": app}


def _wid(value):
    """A window field of a reply as an id (python-xlib gives 0/1 for None/PointerRoot)."""
    return value if isinstance(value, int) else value.id


class _View:
    """The tracked clients as of the last refresh, indexed for the questions asked here."""

    def __init__(self, tracker):
        self.clients = tracker.client_list()  # bottom to top
        self.by_id = {c.id: c for c in self.clients}
        self.by_top = {}  # the root's child holding a client (its frame, or itself) -> clients
        self.frames = {}  # every ancestor of a client below the root -> that client
        for c in self.clients:
            if c.chain:
                self.by_top.setdefault(c.chain[-1], []).append(c)
                for wid in c.chain[1:]:
                    self.frames[wid] = c

    def app_of_process(self, pid, wm_class):
        """The app of the clients of process `pid`: the one with the same WM_CLASS, else the
        only one; None when there is none or several differing ones."""
        mine = [c for c in self.clients if pid and c.identity[1] == pid]
        same = [c for c in mine if wm_class and c.identity[0] == wm_class]
        if same:
            return same[-1].info()
        if mine and all(c.identity[0] == mine[0].identity[0] for c in mine):
            return mine[-1].info()
        return None


class Surfaces:
    def __init__(self, x, tracker, pointer):
        self.x, self.tracker, self.pointer = x, tracker, pointer
        self.d = x.display.display
        self.root = x.root.id

    def gate_facts(self, points):
        """Everything the gates judge an input action by, as of one sync point, in one round
        trip when the guesses below hold (else two).

        A point where the pointer rests (where it was last seen: a click in place) is answered
        by the pointer query's child, as the surface under the pointer is: no request of its
        own. If the query shows the pointer elsewhere, that point is asked for after all."""
        pointer = request.QueryPointer(display=self.d, defer=True, window=self.root)
        resting = self.pointer.last_at
        asked = [p for p in points if p != resting]
        focus, hits, guesses, view = self._ask([pointer], asked, [resting, *asked])
        cursor = (pointer.root_x, pointer.root_y)
        self.pointer.last_at, self.pointer.last_mask = cursor, pointer.mask
        children = dict(zip(asked, (h.child for h in hits)))
        descents = dict(zip(asked, guesses[1:]))
        if len(asked) < len(points):
            if cursor == resting:
                children[resting], descents[resting] = pointer.child, guesses[0]
            else:  # it moved since: what is at the point it rested on is read now
                (hit,) = self._translate([resting])
                children[resting], descents[resting] = hit.child, None
        targets = [(*cursor, pointer.child, guesses[0])]
        targets += [(x, y, children[(x, y)], descents[(x, y)]) for x, y in points]
        jobs = [self._focus_job(view, _wid(focus.focus))]
        jobs += [self._hit_job(view, x, y, _wid(top), guess) for x, y, top, guess in targets]
        focus_surface, under_pointer, *at = self._run(jobs)
        return {"windows": self.tracker.windows(), "focus": focus_surface, "at": at,
                "cursor": {"x": cursor[0], "y": cursor[1]},
                "under_pointer": under_pointer, "buttons": self.buttons(pointer.mask)}

    def _translate(self, points):
        """TranslateCoordinates(root -> root) at each point, answered (one round trip)."""
        hits = self._hits(points)
        with self.x.checked("read gate facts", sync=False):
            for hit in hits:
                hit.reply()
        return hits

    def _hits(self, points):
        return [request.TranslateCoords(display=self.d, defer=True, src_wid=self.root,
                                        dst_wid=self.root, src_x=x, src_y=y) for x, y in points]

    def buttons(self, mask):
        """The buttons held: down in a QueryPointer `mask`, or pressed by this process."""
        return [name for name, number, bit in BUTTON_MASKS
                if mask & bit or number in self.pointer.held]

    def now(self, points, focus=True):
        """(the focus surface or None, [the surface at each point]): read exactly as gate_facts
        reads them, without the pointer and the window list. The input guard's re-check."""
        focus_req, hits, guesses, view = self._ask([], points, points)
        jobs = [self._focus_job(view, _wid(focus_req.focus))] if focus else []
        jobs += [self._hit_job(view, x, y, _wid(h.child), guess)
                 for (x, y), h, guess in zip(points, hits, guesses)]
        results = self._run(jobs)
        return (results.pop(0) if focus else None), results

    def _ask(self, first, points, spots):
        """One batch after `first`: the focus, the root's child at each point, and the frame
        descents guessed for each of `spots`; the window state refreshed at the same sync
        point. Returns (GetInputFocus, [TranslateCoords per point], guesses, view)."""
        focus = request.GetInputFocus(display=self.d, defer=True)
        hits = self._hits(points)
        # Descending into a frame needs to know the frame first. Guess it from what we know
        # (where we last put the pointer, the clients' last rectangles) and ask in the same
        # batch; a guess is used only if the server's answer shows it was right.
        guesses = [self._guess(at) for at in spots]
        self.tracker.refresh([*first, focus, *hits, *(r for g in guesses if g for r in g[2])])
        guesses = [g and (g[0], g[1], [_reply(r) for r in g[2]]) for g in guesses]
        return focus, hits, guesses, _View(self.tracker)

    def _guess(self, at):
        """(at, chain, descent requests) for the topmost client whose last known rectangle
        holds `at`, when it sits in a frame; None otherwise."""
        if at is None:
            return None
        x, y = at
        for client in reversed(self.tracker.client_list()):
            if client.geometry is None or len(client.chain) < 2:
                continue
            cx, cy, width, height, viewable, _ = client.geometry
            if viewable and cx <= x < cx + width and cy <= y < cy + height:
                chain = tuple(client.chain)
                return at, chain, self._descent(chain, x, y)
        return None

    def _descent(self, chain, x, y):
        """TranslateCoordinates into each ancestor of a client (chain[1:]) at root (x, y)."""
        return [request.TranslateCoords(display=self.d, defer=True, src_wid=self.root,
                                        dst_wid=wid, src_x=x, src_y=y) for wid in chain[1:]]

    # -- running jobs: each is a generator that yields the requests it needs answered -------
    def _run(self, jobs):
        """Drive the jobs side by side: every request they ask for in one step goes out in one
        batch (one round trip per step). A job gets a reply, or None for a vanished window."""
        results, waiting = [None] * len(jobs), {}

        def advance(i, job, replies):
            try:
                waiting[i] = (job, job.send(replies))
            except StopIteration as done:
                waiting.pop(i, None)
                results[i] = done.value
        for i, job in enumerate(jobs):
            advance(i, job, None)
        while waiting:
            answered = {}
            with self.x.checked("read gate facts", sync=False):
                for i, (job, reqs) in waiting.items():
                    answered[i] = [_reply(req) for req in reqs]
            for i, (job, _) in list(waiting.items()):
                advance(i, job, answered[i])
        return results

    def _focus_job(self, view, wid):
        if wid in (X.NONE, X.PointerRoot):
            return surface(NONE)
        if wid == self.root:
            return surface(ROOT, wid)
        while True:
            client = view.by_id.get(wid)
            if client is not None:
                return surface(CLIENT, client.id, client.info())
            client = view.frames.get(wid)
            if client is not None:
                return surface(DECORATION, client.id, client.info())
            (tree,) = yield [request.QueryTree(display=self.d, defer=True, window=wid)]
            if tree is None or isinstance(tree.parent, int):
                return surface(UNKNOWN, wid)
            if tree.parent.id == self.root:
                return (yield from self._toplevel_job(view, wid))
            wid = tree.parent.id

    def _hit_job(self, view, x, y, top, guess=None):
        if top == X.NONE:
            return surface(ROOT, self.root)
        clients = view.by_top.get(top)
        if not clients:
            return (yield from self._toplevel_job(view, top))
        for client in clients:
            if len(client.chain) == 1:  # not reparented: the root's child is the client
                return surface(CLIENT, client.id, client.info())
        # Inside a frame: the point is on the client when every ancestor's child there is the
        # next window down the client's chain (the title bar and borders are other children).
        for client in clients:
            chain = tuple(client.chain)
            if guess is not None and guess[:2] == ((x, y), chain):
                replies = guess[2]  # asked in the first batch: answered, and still the chain
            else:
                replies = yield self._descent(chain, x, y)
            if all(r is not None and _wid(r.child) == chain[i]
                   for i, r in enumerate(replies)):
                return surface(CLIENT, client.id, client.info())
        return surface(DECORATION, clients[0].id, clients[0].info())

    def _toplevel_job(self, view, wid):
        """A child of the root that holds no tracked client: a popup or unknown."""
        t = self.tracker
        net_name, utf8, net_pid = (t.atoms[n] for n in ("_NET_WM_NAME", "UTF8_STRING",
                                                         "_NET_WM_PID"))
        reads = [request.GetWindowAttributes(display=self.d, defer=True, window=wid),
                 t.prop_request(wid, Xatom.WM_CLASS, Xatom.STRING),
                 t.prop_request(wid, net_pid, Xatom.CARDINAL),
                 t.prop_request(wid, net_name, utf8),
                 t.prop_request(wid, Xatom.WM_NAME, X.AnyPropertyType)]
        res_req = t.res_pid.request(wid)
        replies = yield reads + ([res_req] if res_req is not None else [])
        attrs, wm_class, pid, name, plain = replies[:5]
        if attrs is None or not attrs.override_redirect or None in replies[1:5]:
            return surface(UNKNOWN, wid)
        pid_value = t.prop_value(wid, net_pid, Xatom.CARDINAL, pid)
        pid = t.res_pid.ask(wid, replies[5]) if res_req is not None and replies[5] else None
        if pid is None and pid_value:
            pid = int(pid_value[0])
        wm_class = wm_class_of(t.prop_value(wid, Xatom.WM_CLASS, Xatom.STRING, wm_class))
        app = view.app_of_process(pid, wm_class)
        if app is None:
            title = (t.prop_value(wid, net_name, utf8, name) if name.property_type != X.NONE
                     else t.prop_value(wid, Xatom.WM_NAME, X.AnyPropertyType, plain))
            app = {"window": wid, "title": title_of(title), "wm_class": wm_class, "pid": pid,
                   "exe": exe_of(pid)}
        return surface(POPUP, wid, app)


def _reply(req):
    """The answered request, or None when its window no longer exists. An X-Resource query
    about a vanished client fails with BadValue: also None."""
    try:
        req.reply()
    except xerror.XError as e:
        if type(e).__name__ in GONE or type(e).__name__ == "BadValue":
            return None
        raise
    return req
