"""The input guard: what the gates judged, re-checked at the moment the input is sent.

The gates read the facts (`gate_facts`), judge them, and only then is the input sent, by another
request. In between, the window manager (focusing the window our previous click hit) or an app
(mapping a dialog that takes the focus) can change what the input reaches. So an input op may
carry the facts it was judged on:

    "guard": {"focus": 4194317, "at": [[640, 400, "client", 4194317]]}

- `focus`: the window that must hold the X input focus (a client, or a popup), resolved as
  gate_facts resolves it;
- `at`: [x, y, kind, window] — what must be at each point (kind and window of the surface,
  from the same server-side hit test as gate_facts);
- `facts`: a token of facts this runtime reported (reported_facts.py): the gates judged on those
  without asking for them again, so the whole of gate_facts is read again under the grab and must
  still be what the token stands for. A refusal then carries the fresh facts (with their token),
  for the worker to judge again without another round trip. Checked once per op (the first
  chunk of a `type` or `key`); later chunks check `focus`/`at` as usual.

The check and the input happen under one server grab: XGrabServer, the re-check (one round
trip), the XTest events and a sync (the server processes fake input between requests, so by
then it has been delivered), XUngrabServer. No other client's request is processed in between,
so nothing can change between the check and the input. If the guard no longer holds, nothing
is sent: `guard_failed`.
"""
import contextlib

from .errors import GuardFailed
from .reported_facts import TOKEN_MAX, ReportedFacts
from .surfaces import CLIENT, DECORATION, NONE, POPUP, ROOT, UNKNOWN

KINDS = (CLIENT, DECORATION, POPUP, ROOT, NONE, UNKNOWN)
FOCUS_KINDS = (CLIENT, POPUP)  # what can hold the focus for keys to be judged at all
MAX_WINDOW_ID = 0xFFFFFFFF
MAX_POINTS = 16


class Guard:
    def __init__(self, focus=None, at=(), facts=None):
        self.focus = focus    # window id, or None: the focus is not checked
        self.at = list(at)    # [((x, y), kind, window or None)]
        self.facts = facts    # a reported facts token, or None: only focus/at are checked
        self.spent = False    # the facts token was checked (once per op)


def parse_guard(p, width, height):
    """The op's optional `guard` parameter as a Guard (None when absent); bad_args if malformed."""
    value = p.object("guard", None)
    if value is None:
        return None
    where = f"{p.op}: 'guard'"
    unknown = sorted(set(value) - {"focus", "at", "facts"})
    if unknown:
        raise ValueError(f"{where} has unknown field(s) {', '.join(unknown)}")
    focus, at = value.get("focus"), value.get("at")
    if focus is None and not at:
        raise ValueError(f"{where} must have 'focus', 'at' or both (or be left out)")
    if focus is not None:
        _window_id(f"{where}.focus", focus)
    facts = value.get("facts")
    if facts is not None and (not isinstance(facts, str) or not 1 <= len(facts) <= TOKEN_MAX):
        raise ValueError(f"{where}.facts must be a facts token (a string of 1 to {TOKEN_MAX} "
                         f"characters), got {facts!r}")
    if at is not None and (not isinstance(at, list) or len(at) > MAX_POINTS):
        raise ValueError(f"{where}.at must be a list of at most {MAX_POINTS} entries")
    entries = []
    for i, entry in enumerate(at or []):
        name = f"{where}.at[{i}]"
        if not isinstance(entry, list) or len(entry) != 4:
            raise ValueError(f"{name} must be [x, y, kind, window]")
        x, y, kind, window = entry
        for coord, hi in ((x, width - 1), (y, height - 1)):
            if isinstance(coord, bool) or not isinstance(coord, int) or not 0 <= coord <= hi:
                raise ValueError(f"{name}: the point must be on the screen, got [{x!r}, {y!r}]")
        if kind not in KINDS:
            raise ValueError(f"{name}: kind must be one of {', '.join(KINDS)}; got {kind!r}")
        if window is not None:
            _window_id(f"{name}: window", window)
        entries.append(((x, y), kind, window))
    return Guard(focus, entries, facts)


def _window_id(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_WINDOW_ID:
        raise ValueError(f"{name} must be a window id (1 to {MAX_WINDOW_ID}), got {value!r}")


class Guards:
    """Holds the server while a guard is checked and the input sent."""

    def __init__(self, x, surfaces):
        self.x, self.surfaces = x, surfaces
        self.reported = ReportedFacts()

    def gate_facts(self, points):
        """gate_facts, reported: the answer carries its token."""
        return self.reported.report(self.surfaces.gate_facts(points))

    def after(self, guard):
        """What an op that was judged on reported facts answers with, after its input: the
        facts now (for the next action's gates), as compactly as `ReportedFacts.answer` can."""
        if guard is None or guard.facts is None:
            return {}
        return {"facts": self.reported.answer(guard.facts, self.surfaces.gate_facts([]))}

    def send_reported(self, guard, what, pointer, at, events, settle=()):
        """Pointer input judged on reported facts, in two round trips instead of three: the
        check under the grab (one), then the XTest events and the UngrabServer queued behind
        them and sent with a QueryPointer (two). The server processes a client's requests in
        order, the grabbing client's alone, and delivers fake input before the next request, so
        the input still lands before anyone else runs, exactly as when a sync before the
        release confirmed it; the query's reply shows it was processed.

        The facts after it are those read under the grab with the input's own effect applied:
        the pointer where the query finds it, the surface under it as the check read it at that
        point, the held buttons from the query's mask. (The next op's check reads them again
        under its grab, as always: they are what its gates judge by, not what it is sent on.)
        Where that is not known — the pointer is elsewhere, the point was not checked — they are
        read in full. A button a window manager froze with a synchronous grab shows in the
        mask as still down: its replay is waited for (`Pointer.settle`) and the facts read in
        full.
        """
        mask = pointer.settle_mask(settle)
        with self.x.server_grabbed(release_with_next_read=True):
            checked = self.check(guard, what)
            # The pointer already there (a click in place): no motion, which would move nothing.
            here = checked is not None and checked["cursor"] == {"x": at[0], "y": at[1]}
            pointer.queue(None if here else at, events)
        query = pointer.query_request()
        try:
            with self.x.checked(what, sync=False):  # the input's own errors arrive with it
                query.reply()
        finally:
            self.x.display.flush()  # the release goes out even if nothing was read
        pointer.last_at, pointer.last_mask = (query.root_x, query.root_y), query.mask
        if pointer.last_mask & mask:  # not reported: the facts of a moment that passes
            pointer.settle(mask)
            facts = self.surfaces.gate_facts([])
        else:
            facts = self._moved(checked, guard, pointer.last_at, query.mask)
            if facts is None:
                facts = self.surfaces.gate_facts([])
        return {"facts": self.reported.answer(guard.facts, facts)}

    def _moved(self, checked, guard, cursor, button_mask):
        """The facts read under the grab (`checked`) with the pointer at `cursor`, or None when
        the check did not read what is there."""
        if checked is None:
            return None
        for ((x, y), _, _), surface in zip(guard.at, checked["at"]):
            if (x, y) == cursor:
                return {**checked, "at": [], "cursor": {"x": x, "y": y}, "under_pointer": surface,
                        "buttons": self.surfaces.buttons(button_mask)}
        return None

    @contextlib.contextmanager
    def hold(self, guard, what):
        """Run the block (which sends input and ends with a round trip, as `checked()` does)
        under a server grab, after checking the guard; GuardFailed and nothing sent if it no
        longer holds. Without a guard, just run the block."""
        if guard is None:
            yield
            return
        with self.x.server_grabbed():
            self.check(guard, what)
            yield

    def check(self, guard, what):
        """Check the guard (GuardFailed if it no longer holds). The op's first check of a facts
        token returns the facts it read (with `at` for the guard's points); other checks None."""
        points = [p for p, _, _ in guard.at]
        if guard.facts is not None and not guard.spent:
            guard.spent = True
            return self._check_reported(guard, what, points)
        focus, at = self.surfaces.now(points, guard.focus is not None)
        self._compare(guard, what, focus, at)
        return None

    def _check_reported(self, guard, what, points):
        facts = self.surfaces.gate_facts(points)
        token = guard.facts
        try:
            if not self.reported.holds(token, facts):
                raise GuardFailed(f"{what}: the desktop changed since the facts it was judged "
                                  f"on were reported")
            self._compare(guard, what, facts["focus"], facts["at"])
        except GuardFailed as refused:
            refused.facts = self.reported.report(facts)
            raise
        return facts

    def _compare(self, guard, what, focus, at):
        if guard.focus is not None and not (focus["kind"] in FOCUS_KINDS
                                            and focus["window"] == guard.focus):
            raise GuardFailed(f"{what}: the input focus is on {_describe(focus)} now, not on "
                              f"window 0x{guard.focus:x}")
        for ((x, y), kind, window), got in zip(guard.at, at):
            if (got["kind"], got["window"]) != (kind, window):
                raise GuardFailed(f"{what}: at ({x}, {y}) there is {_describe(got)} now, not "
                                  f"{_describe({'kind': kind, 'window': window})}")


def _describe(surface):
    window = surface["window"]
    return surface["kind"] + ("" if window is None else f" 0x{window:x}")
