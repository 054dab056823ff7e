"""Cost of the per-action input path: `gate_facts` and `click`, as the worker calls them.

Starts no desktop: it runs one runtime process against $DISPLAY (bring your own Xvfb, a window
manager and a few client windows) and times request → response over the real protocol.

    Xvfb :77 -screen 0 1280x800x24 & DISPLAY=:77 openbox & DISPLAY=:77 xterm & DISPLAY=:77 xterm &
    DISPLAY=:77 /usr/bin/python3 runtime/bench/gate_bench.py [--runs 500]

Clicks land on the topmost mapped client window (`same`), or alternate between the two
topmost ones (`alternating`: every click changes focus and stacking, so the window state
really changes between actions). Before each click, `gate_facts` is asked about the click's
point, as the gates do; `gate_facts` is also timed alone: no point (the focus and the pointer
only), one point on a client, one on the bare desktop.

Each click (and a Shift key press on the focused window) is sent twice in turn, unguarded and
with the input guard the gates build from that `gate_facts` answer (what is at the point; the
focus), so both see the same machine speed: the guard's cost is the difference.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

RUNTIME_DIR = Path(__file__).resolve().parents[1]
SHIFT_L = 0xFFE1


class Runtime:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "deskgate_runtime"], cwd=RUNTIME_DIR,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0

    def call(self, op, **params):
        self.next_id += 1
        self.proc.stdin.write((json.dumps({"id": self.next_id, "op": op, **params}) + "\n").encode())
        self.proc.stdin.flush()
        resp = json.loads(self.proc.stdout.readline())
        assert resp.get("ok"), resp
        return resp["result"]

    def timed(self, op, **params):
        return self.timed_call(op, **params)[0]

    def timed_call(self, op, **params):
        start = time.perf_counter()
        result = self.call(op, **params)
        return (time.perf_counter() - start) * 1000, result

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(5)


def figures(name, samples):
    s = sorted(samples)
    p90 = s[int(len(s) * 0.9)]
    print(f"{name:38s} p50 {statistics.median(s):6.3f} ms   p90 {p90:6.3f} ms   (n={len(s)})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=500)
    args = ap.parse_args()
    if not os.environ.get("DISPLAY"):
        sys.exit("set DISPLAY to a running X server with a window manager and some windows")
    rt = Runtime()
    try:
        wins = [w for w in rt.call("list_windows")["windows"] if w["mapped"]]
        if len(wins) < 2:
            sys.exit("need at least two mapped client windows (e.g. two xterms)")
        print(f"{len(wins)} mapped client windows")
        # A spot inside each of the two topmost windows that the other one never covers.
        targets = []
        for w, other in ((wins[-1], wins[-2]), (wins[-2], wins[-1])):
            spot = next(((x, y) for y in range(w["y"] + 5, w["y"] + w["height"], 10)
                         for x in range(w["x"] + 5, w["x"] + w["width"], 10)
                         if not (other["x"] <= x < other["x"] + other["width"]
                                 and other["y"] <= y < other["y"] + other["height"])),
                        None)
            if spot is None:
                sys.exit(f"window 0x{w['id']:x} is fully covered; spread the windows out")
            targets.append(spot)
        root_spot = next(([x, y] for y in range(5, 800, 20) for x in range(5, 1280, 20)
                          if not any(w["x"] - 10 <= x < w["x"] + w["width"] + 10
                                     and w["y"] - 40 <= y < w["y"] + w["height"] + 10
                                     for w in wins)), None)
        if root_spot is None:
            sys.exit("no bare desktop left to hit-test: make the windows smaller")
        for _ in range(20):  # warm up: identity caches, imports, keymap
            rt.call("gate_facts")
        figures("ping (the protocol hop alone)", [rt.timed("ping") for _ in range(args.runs)])
        figures("gate_facts (nothing changed)", [rt.timed("gate_facts") for _ in range(args.runs)])
        figures("gate_facts, 1 point on a client", [rt.timed("gate_facts", points=[targets[0]])
                                                    for _ in range(args.runs)])
        figures("gate_facts, 1 point on the root", [rt.timed("gate_facts", points=[root_spot])
                                                    for _ in range(args.runs)])
        for mode in ("same", "alternating"):
            facts, clicks, pairs = {}, {}, {}
            for i in range(args.runs):
                for guarded in (False, True):
                    # alternating: every click, guarded or not, goes to the other window
                    x, y = targets[int(guarded) if mode == "alternating" else 0]
                    start = time.perf_counter()
                    ms, answer = rt.timed_call("gate_facts", points=[[x, y]])
                    at = answer["at"][0]
                    guard = {"guard": {"at": [[x, y, at["kind"], at["window"]]]}} if guarded else {}
                    facts.setdefault(guarded, []).append(ms)
                    clicks.setdefault(guarded, []).append(
                        rt.timed("click", x=x, y=y, button="left", count=1, **guard))
                    pairs.setdefault(guarded, []).append((time.perf_counter() - start) * 1000)
            for guarded, name in ((False, ""), (True, ", guarded")):
                figures(f"gate_facts before click ({mode})", facts[guarded])
                figures(f"click ({mode}{name})", clicks[guarded])
                figures(f"gate_facts + click ({mode}{name})", pairs[guarded])
        keys = {}
        for i in range(args.runs):
            focus = rt.call("gate_facts")["focus"]["window"]
            for guarded in (False, True):
                guard = {"guard": {"focus": focus}} if guarded else {}
                keys.setdefault(guarded, []).append(rt.timed("key", chords=[[SHIFT_L]], **guard))
        figures("key Shift (focused window)", keys[False])
        figures("key Shift (focused window, guarded)", keys[True])
    finally:
        rt.close()


if __name__ == "__main__":
    main()
