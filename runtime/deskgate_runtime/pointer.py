"""Pointer primitives through XTest: motion, buttons, clicks, drags, scrolling."""
import math
import time

from Xlib import X
from Xlib.ext import xtest

BUTTONS = {"left": 1, "middle": 2, "right": 3}
SCROLL_BUTTONS = {"up": 4, "down": 5, "left": 6, "right": 7}
DRAG_STEP_S = 0.004  # lets toolkits see separate motion events (drag thresholds, DnD)
SETTLE_TIMEOUT_S = 0.5


class Pointer:
    def __init__(self, x):
        self.x = x
        self.held = set()  # logical buttons pressed by this process
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
        self.check_point(x, y)
        with self.x.checked(f"move to ({x}, {y})") as d:
            xtest.fake_input(d, X.MotionNotify, x=x, y=y)

    def position(self):
        with self.x.checked("query pointer"):
            p = self.x.root.query_pointer()
        return p.root_x, p.root_y

    def _settle(self, released):
        """Wait until the server has really processed our button releases.

        A window manager that takes a click with a synchronous grab (openbox's click-to-focus)
        freezes pointer events until it replays them, while key events keep flowing: a key sent
        right after a click could reach the app first. The button mask of QueryPointer shows
        the release only once it was processed, so poll it (typically 0-2 ms).
        """
        mask = 0
        for b in released:
            if 1 <= b <= 5:
                mask |= X.Button1Mask << (b - 1)
        mask &= ~sum(X.Button1Mask << (b - 1) for b in self.held if 1 <= b <= 5)
        if not mask:
            return
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while True:
            with self.x.checked("query pointer"):
                state = self.x.root.query_pointer().mask
            if not state & mask or time.monotonic() > deadline:
                return
            time.sleep(0.0002)  # a short poll: each QueryPointer is itself a round trip

    def down(self, button):
        with self.x.checked(f"press button {button}") as d:
            xtest.fake_input(d, X.ButtonPress, self._button(button))
        self.held.add(button)

    def up(self, button):
        with self.x.checked(f"release button {button}") as d:
            xtest.fake_input(d, X.ButtonRelease, self._button(button))
        self.held.discard(button)
        self._settle([button])

    def click(self, x, y, button, count):
        self.move(x, y)
        physical = self._button(button)
        with self.x.checked(f"click button {button} x{count}") as d:
            for _ in range(count):
                xtest.fake_input(d, X.ButtonPress, physical)
                xtest.fake_input(d, X.ButtonRelease, physical)
        self._settle([button])

    def scroll(self, x, y, direction, amount):
        self.move(x, y)
        physical = self._button(SCROLL_BUTTONS[direction])
        with self.x.checked(f"scroll {direction} x{amount}") as d:
            for _ in range(amount):
                xtest.fake_input(d, X.ButtonPress, physical)
                xtest.fake_input(d, X.ButtonRelease, physical)
        self._settle([SCROLL_BUTTONS[direction]])

    def drag(self, start, end, button):
        if start is None:
            start = self.position()
        else:
            self.move(*start)
        self.check_point(*end)
        distance = math.dist(start, end)
        steps = max(5, min(20, int(distance // 20)))
        self.down(button)
        try:
            for i in range(1, steps + 1):
                t = i / steps
                px = round(start[0] + (end[0] - start[0]) * t)
                py = round(start[1] + (end[1] - start[1]) * t)
                with self.x.checked("drag motion") as d:
                    xtest.fake_input(d, X.MotionNotify, x=px, y=py)
                time.sleep(DRAG_STEP_S)
        finally:
            self.up(button)

    def release_all(self):
        for button in sorted(self.held):
            self.up(button)
