"""python3 -m deskgate_runtime [--display :N] — serve the input protocol on stdin/stdout."""
import argparse
import logging
import signal
import sys

from .errors import DisplayError
from .server import serve


def main(argv=None):
    p = argparse.ArgumentParser(prog="deskgate_runtime", description=__doc__)
    p.add_argument("--display", default=None, help="X display, e.g. :60 (default: $DISPLAY)")
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
        return _serve_unavailable(str(e))
    try:
        serve(rt)
    except DisplayError as e:
        logging.error("%s", e)
        return 2
    except KeyboardInterrupt:
        pass
    finally:
        rt.close()
    return 0


def _serve_unavailable(message):
    """Without an X server, answer every request with display_error until stdin closes."""
    from . import protocol
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        try:
            rid = protocol.parse_request(raw)[0]
        except protocol.RequestError as e:
            rid = e.rid
        sys.stdout.buffer.write(protocol.error(rid, "display_error", message))
        sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
