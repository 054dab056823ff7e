"""Pointer primitives through XTest: motion, buttons, clicks, drags, scrolling."""
import math
import time

from Xlib import X
from Xlib.ext import xtest
from Xlib.protocol import request

BUTTONS = {"left": 1, "middle": 2, "right": 3}
SCROLL_BUTTONS = {"up": 4, "down": 5, "left": 6, "right": 7}
DRAG_STEP_S = 0.004  # lets toolkits see separate motion events (drag thresholds, DnD)
SETTLE_TIMEOUT_S = 0.5
SETTLE_FAST_S = 0.005
SETTLE_SLOW_POLL_S = 0.0005


class Pointer:
    def __init__(self, x):
        self.x = x
        self.held = set()  # logical buttons pressed by this process
        self.last_at = None  # where this process last put the pointer (a hint, not a fact)
        self.last_mask = 0  # the button mask of the last gate facts' pointer query
        self._physical = {}
        self.reload_mapping()
        x.mapping_listeners.append(self._on_mapping_notify)

    def reload_mapping(self):
        """XTest takes physical buttons; find the one the pointer mapping turns into each logical."""
        with self.x.checked("get pointer mapping") as d:
            mapping = d.get_pointer_mapping()
        self._physical = {}
        for physical, logical in enumerate(mapping, start=1):
            self._physical.setdefault(logical, physical)

    def _on_mapping_notify(self, ev):
        if ev.request == X.MappingPointer:
            self.reload_mapping()

    def _button(self, logical):
        return self._physical.get(logical, logical)

    def check_point(self, x, y):
        if not (0 <= x < self.x.width and 0 <= y < self.x.height):
            raise ValueError(f"point ({x}, {y}) is outside the screen "
                             f"({self.x.width}x{self.x.height})")

    def move(self, x, y):
        self._send(f"move to ({x}, {y})", (x, y), [])

    def query_request(self):
        """A QueryPointer sent with the next flush; its reply is read on first use."""
        return request.QueryPointer(display=self.x.display.display, defer=True, window=self.x.root)

    def position(self):
        with self.x.checked("query pointer", sync=False):
            p = self.x.root.query_pointer()
        self.last_at = (p.root_x, p.root_y)
        return self.last_at

    def _send(self, what, at, events, settle=()):
        """Send XTest events in one request batch (an optional motion to `at` first: the server
        handles them in order) and return once the server has processed them.

        With buttons to `settle`, the batch ends with a QueryPointer instead of a sync and
        `settle` polls on from there: a window manager that takes a click with a synchronous
        grab (openbox's click-to-focus) freezes pointer events until it replays them, while key
        events keep flowing, so a key sent right after a click could reach the app first. The
        button mask of QueryPointer shows the release only once it was really processed.
        """
        mask = self.settle_mask(settle)
        with self.x.checked(what, sync=not mask):
            self.queue(at, events)
            state = self.x.root.query_pointer().mask if mask else 0
        if state & mask:  # under a server grab the window manager cannot replay it yet
            self.x.after_grab(lambda: self.settle(mask))

    @staticmethod
    def settle_mask(buttons):
        """The QueryPointer button mask of the buttons a click waits to see released."""
        mask = 0
        for b in buttons:
            if 1 <= b <= 5:  # the only buttons with a mask bit
                mask |= X.Button1Mask << (b - 1)
        return mask

    def queue(self, at, events):
        """Queue XTest requests (an optional motion to `at` first) without waiting for anything:
        the caller's next round trip sends them and, coming back, shows they were processed
        (the server handles a client's requests in order)."""
        if at is not None:
            self.check_point(*at)
            self.last_at = at
        d = self.x.display
        if at is not None:
            xtest.fake_input(d, X.MotionNotify, x=at[0], y=at[1])
        for kind, button in events:
            xtest.fake_input(d, kind, self._button(button))

    def click_events(self, button, count):
        """A click's XTest events and the buttons to settle on (see `_send`)."""
        # A button this process holds stays down: nothing to wait for.
        events = [(X.ButtonPress, button), (X.ButtonRelease, button)] * count
        return events, ([button] if count and button not in self.held else [])

    def settle(self, mask):
        """Poll QueryPointer until the buttons in `mask` show up (typically 2-6 polls, ~1 ms).

        Back to back at first: each poll is a round trip that leaves the CPU to the window
        manager, and a sleep would only add to the wait; apart after SETTLE_FAST_S (a stuck WM).
        """
        start = time.monotonic()
        while True:
            with self.x.checked("query pointer", sync=False):
                state = self.x.root.query_pointer().mask
            elapsed = time.monotonic() - start
            if not state & mask or elapsed > SETTLE_TIMEOUT_S:
                return
            if elapsed > SETTLE_FAST_S:
                time.sleep(SETTLE_SLOW_POLL_S)

    def down(self, button, at=None):
        self._send(f"press button {button}", at, [(X.ButtonPress, button)])
        self.held.add(button)

    def up(self, button, at=None):
        self._send(f"release button {button}", at, [(X.ButtonRelease, button)], [button])
        self.held.discard(button)

    def _clicks(self, what, at, button, count):
        self._send(what, at, *self.click_events(button, count))

    def click(self, x, y, button, count):
        self._clicks(f"click button {button} x{count} at ({x}, {y})", (x, y), button, count)

    def scroll(self, x, y, direction, amount):
        self._clicks(f"scroll {direction} x{amount} at ({x}, {y})", (x, y),
                     SCROLL_BUTTONS[direction], amount)

    def drag(self, start, end, button):
        self.check_point(*end)
        if start is None:
            start = self.position()
            self.down(button)
        else:
            self.down(button, at=start)
        distance = math.dist(start, end)
        steps = max(5, min(20, int(distance // 20)))
        try:
            for i in range(1, steps + 1):
                t = i / steps
                px = round(start[0] + (end[0] - start[0]) * t)
                py = round(start[1] + (end[1] - start[1]) * t)
                with self.x.checked("drag motion") as d:
                    xtest.fake_input(d, X.MotionNotify, x=px, y=py)
                self.last_at = (px, py)
                time.sleep(DRAG_STEP_S)
        finally:
            self.up(button)

    def release_all(self):
        for button in sorted(self.held):
            self.up(button)
