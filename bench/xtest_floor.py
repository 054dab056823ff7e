"""In-process XTest click floor: one python-xlib connection, N x (button press + release + sync).

Usage: /usr/bin/python3 bench/xtest_floor.py DISPLAY ITERATIONS
Prints one JSON line: {"samples_ms": [...]} (warm-up rounds dropped).
"""
import json
import sys
import time

from Xlib import X, display
from Xlib.ext import xtest

WARMUP = 20


def main():
    d = display.Display(sys.argv[1])
    iterations = int(sys.argv[2])
    samples = []
    for i in range(WARMUP + iterations):
        started = time.perf_counter()
        xtest.fake_input(d, X.ButtonPress, 1)
        xtest.fake_input(d, X.ButtonRelease, 1)
        d.sync()
        elapsed = (time.perf_counter() - started) * 1e3
        if i >= WARMUP:
            samples.append(elapsed)
    d.close()
    print(json.dumps({"samples_ms": samples}))


if __name__ == "__main__":
    main()
