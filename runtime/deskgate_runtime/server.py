"""The request loop: read JSON lines from stdin, answer each in order on stdout.

Nothing but protocol lines goes to stdout. Every failure of one request becomes an error
response; only a lost X connection ends the process (with status 2). On stdin EOF the
process releases whatever it holds and exits 0.
"""
import logging
import os
import select

from . import protocol
from .errors import DisplayError, RuntimeFault
from .ops import OPS

log = logging.getLogger(__name__)
IDLE_TICK_S = 0.25


class LineReader:
    """Splits a file descriptor's bytes into lines, flagging lines over the size limit."""

    def __init__(self, fd, limit=protocol.MAX_LINE):
        self.fd, self.limit = fd, limit
        self._buf = bytearray()
        self._skipping = None  # prefix of an oversized line being discarded
        self.eof = False

    def read_available(self):
        try:
            chunk = os.read(self.fd, 1 << 16)
        except ConnectionResetError:  # a socket peer that went away mid-stream: its end
            chunk = b""
        if not chunk:
            self.eof = True
        self._buf += chunk

    def lines(self):
        """Yield (line, oversized_prefix): exactly one of them is set."""
        while True:
            nl = self._buf.find(b"\n")
            if nl < 0:
                if len(self._buf) > self.limit:
                    if self._skipping is None:
                        self._skipping = bytes(self._buf[:200])
                    del self._buf[:]
                if self.eof and self._buf and self._skipping is None:
                    line, self._buf = bytes(self._buf), bytearray()
                    yield line, None
                elif self.eof and self._skipping is not None:
                    prefix, self._skipping = self._skipping, None
                    yield None, prefix
                return
            line = bytes(self._buf[:nl])
            del self._buf[:nl + 1]
            if self._skipping is not None:
                prefix, self._skipping = self._skipping, None
                yield None, prefix
            elif len(line) > self.limit:
                yield None, line[:200]
            else:
                yield line, None


def handle_line(rt, line):
    """One request line -> one response line (bytes)."""
    rid = None
    try:
        rid, op, params = protocol.parse_request(line)
        handler = OPS.get(op)
        if handler is None:
            raise ValueError(f"unknown op {op!r}; known ops: {', '.join(sorted(OPS))}")
        rt.x.drain_events()
        return protocol.ok(rid, handler(rt, params))
    except protocol.RequestError as e:
        return protocol.error(e.rid, "bad_args", str(e))
    except ValueError as e:
        return protocol.error(rid, "bad_args", str(e))
    except DisplayError:
        raise
    except RuntimeFault as e:
        return protocol.error(rid, e.kind, str(e), **e.details)
    except Exception as e:  # a bug must not take the desktop's input layer down
        log.exception("op failed unexpectedly")
        return protocol.error(rid, "x11_error", f"internal error: {type(e).__name__}: {e}")


def write_all(fd, data):
    """os.write until every byte is out (a socket or pipe may take part of a large line)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def serve(rt, in_fd=0, out_fd=1):
    """Serve requests from in_fd until EOF. A fresh LineReader each call: a connection (or
    stdin) starts with a clean decoder."""
    reader = LineReader(in_fd)
    while not reader.eof:
        readable, _, _ = select.select([in_fd], [], [], IDLE_TICK_S)
        if not readable:
            rt.idle()
            continue
        reader.read_available()
        for line, oversized in reader.lines():
            if oversized is not None:
                response = protocol.error(
                    protocol.recover_id(oversized), "bad_args",
                    f"request line longer than {protocol.MAX_LINE} bytes")
            elif not line.strip():
                continue
            else:
                try:
                    response = handle_line(rt, line)
                except DisplayError as e:
                    write_all(out_fd, protocol.error(None, "display_error", str(e)))
                    raise
            write_all(out_fd, response)
