"""python3 -m deskgate_runtime [--display :N] [--listen PATH] — serve the input protocol on
stdin/stdout, or on a Unix socket at PATH (one connection at a time)."""
import argparse
import logging
import signal
import sys

from .errors import DisplayError
from .server import serve


def main(argv=None):
    p = argparse.ArgumentParser(prog="deskgate_runtime", description=__doc__)
    p.add_argument("--display", default=None, help="X display, e.g. :60 (default: $DISPLAY)")
    p.add_argument("--listen", default=None, metavar="PATH",
                   help="serve a Unix socket at PATH instead of stdin/stdout")
    p.add_argument("--log-level", default="WARNING")
    args = p.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="deskgate_runtime %(levelname)s %(name)s: %(message)s")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # unwinds through rt.close()

    from .ops import Runtime  # imported late so --help works without python3-xlib
    try:
        rt = Runtime(args.display)
    except DisplayError as e:
        # Still speak the protocol: every request is answered with the display error.
        logging.error("%s", e)
        if args.listen:
            from .listen import serve_socket
            serve_socket(args.listen, lambda fd: _serve_unavailable(str(e), fd, fd))
            return 0
        return _serve_unavailable(str(e))
    try:
        if args.listen:
            from .listen import serve_socket
            serve_socket(args.listen, lambda fd: serve(rt, fd, fd), idle=rt.idle,
                         end=rt.end_connection)
        else:
            serve(rt)
    except DisplayError as e:
        logging.error("%s", e)
        return 2
    except KeyboardInterrupt:
        pass
    finally:
        rt.close()
    return 0


def _serve_unavailable(message, in_fd=0, out_fd=1):
    """Without an X server, answer every request with display_error until the input ends."""
    from . import protocol
    from .server import LineReader, write_all
    reader = LineReader(in_fd)
    while not reader.eof:
        reader.read_available()
        for line, oversized in reader.lines():
            if oversized is not None:
                rid = protocol.recover_id(oversized)
            elif not line.strip():
                continue
            else:
                try:
                    rid = protocol.parse_request(line)[0]
                except protocol.RequestError as e:
                    rid = e.rid
            write_all(out_fd, protocol.error(rid, "display_error", message))
    return 0


if __name__ == "__main__":
    sys.exit(main())
