"""Who a window belongs to: its WM_CLASS and title as clients write them, the pid of the
process that made it (X-Resource: the server's word; `_NET_WM_PID`: the client's), its exe."""
import os

from Xlib.ext import res


class ResPid:
    """The X-Resource extension's pid of the client that made a window (local clients only)."""

    def __init__(self, x):
        self.x = x
        self.d = x.display.display
        self.available = x.display.has_extension("X-Resource")

    def request(self, wid):
        """A deferred query for `wid`'s pid, or None without the extension."""
        if not self.available:
            return None
        return res.QueryClientIds(display=self.d, defer=True,
                                  opcode=self.d.get_extension_major(res.extname),
                                  specs=[{"client": wid, "mask": res.LocalClientPIDMask}])

    def ask(self, wid, reply=None):
        """The pid from an answered `request(wid)`, or from a query of its own (one round trip)."""
        if reply is None:
            reply = self.request(wid)
            if reply is None:
                return None
            reply.reply()
        for cid in reply.ids:
            if cid.spec.mask & res.LocalClientPIDMask and cid.value:
                return int(cid.value[0])
        return None


def exe_of(pid):
    """The executable of a local process, when /proc lets us read it."""
    if not pid:
        return None
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


def title_of(raw):
    if raw is None:
        return ""
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)


def wm_class_of(raw):
    """WM_CLASS as Window.get_wm_class() decodes it: [instance, class] or None."""
    if not isinstance(raw, bytes):
        return None
    parts = raw.decode("ISO-8859-1").split("\0")
    return [parts[0], parts[1]] if len(parts) >= 2 else None
