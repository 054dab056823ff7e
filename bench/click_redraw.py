#!/usr/bin/python3
"""For the settle bench: runs inside an xterm and turns every mouse click into a redraw that
lasts a while, like a list or a page re-rendering after a click. xterm reports clicks to it
(mouse tracking, DECSET 1000); each press prints LINES lines, one every PERIOD seconds
(default 15 × 20 ms = 300 ms), so the xterm repaints and scrolls for that long.

    xterm -e /usr/bin/python3 bench/click_redraw.py [LINES] [PERIOD]
"""
import os
import sys
import time
import tty

LINES = int(sys.argv[1]) if len(sys.argv) > 1 else 15
PERIOD = float(sys.argv[2]) if len(sys.argv) > 2 else 0.02
MOUSE_REPORT = b"\x1b[M"


def main():
    fd = sys.stdin.fileno()
    tty.setraw(fd)
    out = sys.stdout
    out.write("\x1b[?1000hclick anywhere in this window\r\n")
    out.flush()
    clicks = 0
    pending = b""
    while True:
        data = os.read(fd, 64)
        if not data:
            return
        pending += data
        while MOUSE_REPORT in pending:
            start = pending.index(MOUSE_REPORT)
            if len(pending) < start + 6:
                break
            button = pending[start + 3] - 32
            pending = pending[start + 6:]
            if button & 3 == 3:  # a release
                continue
            clicks += 1
            for line in range(LINES):
                out.write(f"click {clicks} line {line:02d} " + "#" * (line + 20) + "\r\n")
                out.flush()
                time.sleep(PERIOD)


if __name__ == "__main__":
    main()
