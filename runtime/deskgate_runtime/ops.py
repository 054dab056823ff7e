"""The operations: one handler per op, each validating its parameters and returning a result.

Handlers raise ValueError for bad input and RuntimeFault subclasses for desktop failures;
the server turns both into error responses.
"""
import contextlib
import logging

from .client_ping import ClientPing
from .client_sync import ClientSync
from .clipboard import Clipboard
from .errors import DisplayError
from .guard import Guards, parse_guard
from .keyboard import MAX_TEXT, Keyboard
from .keymap import Keymap
from . import launcher
from .keysyms import MAX_CHORD_KEYS, MAX_CHORDS, MAX_KEYSYM, modifier_keysym
from .pointer import BUTTONS, SCROLL_BUTTONS, Pointer
from .spare_keys import SparePool
from .surfaces import Surfaces
from .windows import Windows
from .xconn import XConnection

log = logging.getLogger(__name__)
MAX_WINDOW_ID = 0xFFFFFFFF
MAX_GATE_POINTS = 16


class Runtime:
    """Everything one desktop needs, on one X connection (plus the helper threads' own)."""

    def __init__(self, display_name=None):
        self.x = XConnection(display_name)
        if not self.x.display.has_extension("XTEST"):
            self.x.close()
            raise DisplayError(f"X server {self.x.name} has no XTEST extension")
        self.keymap = Keymap(self.x)
        self.sync = ClientSync(self.x.name, self.x.display.display.info.resource_id_base)
        self.pointer = Pointer(self.x)
        self.windows = Windows(self.x)
        self.pool = SparePool(self.x, self.keymap, self.sync,
                              ClientPing(self.x, self.windows.tracker))
        self.surfaces = Surfaces(self.x, self.windows.tracker, self.pointer)
        self.guards = Guards(self.x, self.surfaces)
        self.keyboard = Keyboard(self.x, self.keymap, self.pool, self.guards)
        self.clipboard = Clipboard(self.x.name)

    def release_all(self):
        self.pointer.release_all()
        self.keyboard.release_all()

    def end_connection(self):
        """A worker's connection ended (--listen): nothing it held stays pressed. The X
        connection, the window tracker, the clipboard and borrowed keycodes (given back when
        idle, as usual) stay for the next connection."""
        try:
            self.release_all()
        except DisplayError:
            raise
        except Exception:
            log.warning("releasing input after a disconnect failed", exc_info=True)

    def idle(self):
        self.x.drain_events()  # the window tracker's events must not pile up while idle
        self.pool.idle()
        launcher.reap()

    def close(self):
        try:
            self.release_all()
            self.pool.restore()
        except Exception:
            log.warning("releasing input on exit failed", exc_info=True)
        self.clipboard.close()
        self.sync.close()
        self.x.close()


def _point(rt, p):
    return (p.int("x", 0, rt.x.width - 1), p.int("y", 0, rt.x.height - 1))


def _guard(rt, p):
    """The optional input guard (guard.py): what the gates judged, re-checked when sending."""
    return parse_guard(p, rt.x.width, rt.x.height)


@contextlib.contextmanager
def _pointer_action(rt, what, mods, guard):
    """Modifiers down, the block's pointer events, all under the guard's grab (if any); the
    modifiers released after the click settled, however the block ends."""
    codes = rt.keyboard.modifier_keycodes(mods)  # resolved before the grab
    pressed = []
    try:
        with rt.guards.hold(guard, what):
            pressed = rt.keyboard.press(codes)
            yield
    finally:
        rt.keyboard.release_modifiers(pressed)


def _modifiers(p):
    """Modifier names for a pointer action: exactly ctrl, alt, shift or meta."""
    mods = p.str_list("modifiers", [])
    for name in mods:
        try:
            modifier_keysym(name)
        except ValueError as e:
            raise ValueError(f"{p.op}: {e}") from None
    return mods


def _chords(p, name="chords"):
    """Key chords as keysyms: [[keysym, ...], ...]; the core resolved the key names."""
    return p.int_lists(name, 1, MAX_KEYSYM, MAX_CHORDS, MAX_CHORD_KEYS)


def op_ping(rt, p):
    p.done()
    return {}


def op_check(rt, p):
    p.done()
    with rt.x.checked("XTEST version"):
        version = rt.x.display.xtest_get_version(2, 2)
    return {"xtest": version.major_version >= 2,
            "width": rt.x.width, "height": rt.x.height}


def op_move(rt, p):
    x, y = _point(rt, p)
    guard = _guard(rt, p)
    p.done()
    if guard is not None and guard.facts is not None:
        return rt.guards.send_reported(guard, "move", rt.pointer, (x, y), [])
    with rt.guards.hold(guard, "move"):
        rt.pointer.move(x, y)
    return rt.guards.after(guard)


def op_click(rt, p):
    x, y = _point(rt, p)
    button = BUTTONS[p.enum("button", tuple(BUTTONS), "left")]
    count = p.int("count", 1, 3, 1)
    mods, guard = _modifiers(p), _guard(rt, p)
    p.done()
    # Modifiers must stay down until a frozen click is replayed: those take the longer way.
    if guard is not None and guard.facts is not None and not mods:
        return rt.guards.send_reported(guard, "click", rt.pointer, (x, y),
                                       *rt.pointer.click_events(button, count))
    with _pointer_action(rt, "click", mods, guard):
        rt.pointer.click(x, y, button, count)
    return rt.guards.after(guard)


def _mouse_button_op(pressing):
    def handler(rt, p):
        button = BUTTONS[p.enum("button", tuple(BUTTONS), "left")]
        x, y = p.int("x", 0, rt.x.width - 1, None), p.int("y", 0, rt.x.height - 1, None)
        if (x is None) != (y is None):
            raise ValueError(f"{p.op}: give both 'x' and 'y', or neither")
        guard = _guard(rt, p)
        p.done()
        if pressing and button in rt.pointer.held:
            raise ValueError(f"mouse_down: button {button} is already held; send mouse_up first")
        with rt.guards.hold(guard, p.op):
            (rt.pointer.down if pressing else rt.pointer.up)(button, None if x is None else (x, y))
        return rt.guards.after(guard)
    return handler


def op_drag(rt, p):
    start = p.point("from", rt.x.width, rt.x.height, None)
    end = p.point("to", rt.x.width, rt.x.height)
    button = BUTTONS[p.enum("button", tuple(BUTTONS), "left")]
    mods, guard = _modifiers(p), _guard(rt, p)
    p.done()
    with _pointer_action(rt, "drag", mods, guard):  # press, motion and release: one grab
        rt.pointer.drag(start, end, button)
    return rt.guards.after(guard)


def op_scroll(rt, p):
    x, y = _point(rt, p)
    direction = p.enum("direction", tuple(SCROLL_BUTTONS))
    amount = p.int("amount", 0, 100, 1)
    mods, guard = _modifiers(p), _guard(rt, p)
    p.done()
    with _pointer_action(rt, "scroll", mods, guard):
        rt.pointer.scroll(x, y, direction, amount)
    return rt.guards.after(guard)


def op_key(rt, p):
    chords, repeat = _chords(p), p.int("repeat", 1, 100, 1)
    guard = _guard(rt, p)
    p.done()
    rt.keyboard.key(chords, repeat, guard)
    return rt.guards.after(guard)


def op_key_down(rt, p):
    chords, guard = _chords(p), _guard(rt, p)
    p.done()
    rt.keyboard.key_down(chords, guard)
    return rt.guards.after(guard)


def op_key_up(rt, p):
    chords = _chords(p)
    p.ignored("guard")  # never checked, not even its shape: releasing keys is always safe
    p.done()
    rt.keyboard.key_up(chords)
    return {}


def op_type(rt, p):
    text, guard = p.str("text"), _guard(rt, p)
    p.done()
    if len(text) > MAX_TEXT:
        raise ValueError(f"type: text is {len(text)} characters; the limit is {MAX_TEXT}")
    return {"typed": rt.keyboard.type_text(text, guard), **rt.guards.after(guard)}


def op_cursor_position(rt, p):
    p.done()
    x, y = rt.pointer.position()
    return {"x": x, "y": y}


def op_frontmost_app(rt, p):
    p.done()
    rt.windows.refresh()
    return rt.windows.frontmost()


def op_window_at(rt, p):
    x, y = _point(rt, p)
    p.done()
    rt.windows.refresh()
    return rt.windows.at(x, y)


def op_list_windows(rt, p):
    p.done()
    rt.windows.refresh()
    return {"windows": rt.windows.list()}


def op_gate_facts(rt, p):
    """Everything the gate pipeline judges an input action by: the real X input focus, what
    is at each point and under the pointer, held buttons, the client windows. The window
    state is kept from X events; the pointer query doubles as its sync point. The answer's
    `token` names them for an input op judged on them (guard.py, reported_facts.py)."""
    points = p.point_list("points", rt.x.width, rt.x.height, MAX_GATE_POINTS, [])
    p.done()
    return rt.guards.gate_facts(points)


def op_iconify(rt, p):
    wid = p.int("window", 1, MAX_WINDOW_ID)
    p.done()
    rt.windows.iconify(wid)
    return {}


def op_activate(rt, p):
    wid = p.int("window", 1, MAX_WINDOW_ID)
    p.done()
    rt.windows.activate(wid)
    return {}


def op_release_all(rt, p):
    p.done()
    rt.release_all()
    return {}


def op_clipboard_write(rt, p):
    text = p.str("text")
    p.done()
    rt.clipboard.write(text)
    return {}


def op_clipboard_read(rt, p):
    p.done()
    return {"text": rt.clipboard.read()}


def op_launch(rt, p):
    """Start a process in the runtime's own environment (container desktops: the worker cannot)."""
    argv = p.str_list("argv")
    env = p.object("env", None)
    cwd = p.str("cwd", None)
    p.done()
    return {"pid": launcher.launch(argv, env, cwd)}


def op_desktop_entries(rt, p):
    user = p.bool("user", True)
    p.done()
    files, truncated = launcher.desktop_entries(user=user)
    return {"files": files, "truncated": truncated}


OPS = {
    "ping": op_ping, "check": op_check, "move": op_move, "click": op_click,
    "mouse_down": _mouse_button_op(True), "mouse_up": _mouse_button_op(False),
    "drag": op_drag, "scroll": op_scroll, "key": op_key, "key_down": op_key_down,
    "key_up": op_key_up, "type": op_type,
    "cursor_position": op_cursor_position, "frontmost_app": op_frontmost_app,
    "window_at": op_window_at, "list_windows": op_list_windows, "iconify": op_iconify,
    "gate_facts": op_gate_facts,
    "activate": op_activate, "release_all": op_release_all,
    "clipboard_write": op_clipboard_write, "clipboard_read": op_clipboard_read,
    "launch": op_launch, "desktop_entries": op_desktop_entries,
}
