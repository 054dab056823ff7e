"""Typing speed and exactness on a private Xvfb + openbox + probe app. Prints figures.

    /usr/bin/python3 runtime/bench/typing_bench.py [--runs 10]
"""
import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import PROBE_CLASS, Desktop, Probe, RuntimeProcess  # noqa: E402

CJK = "日本語中文字符漢字測試東京大阪京都北海道沖縄九州四国山川海空雨雪花鳥風月春夏秋冬"
SAMPLES = {
    "ascii (100)": ("The quick brown Fox jumps over the lazy Dog 0123456789! " * 2)[:100],
    "mixed (100)": ("Hello, wörld — 日本語 ✓ " * 6)[:100],
    "cjk, 41 distinct (100)": (CJK * 3)[:100],
    "cjk+latin, ~120 distinct (300)": "".join(chr(0x4E00 + i) + "éàüß"[i % 4] for i in range(150)),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        desktop = Desktop(Path(tmp))
        try:
            probe = Probe(desktop, **{"class": PROBE_CLASS})
            rt = RuntimeProcess(desktop)
            x, y = probe.center("text")
            rt.call("click", x=x, y=y)
            for name, text in SAMPLES.items():
                times, wrong = [], 0
                for _ in range(args.runs):
                    since = probe.mark()
                    rt.call("key", chords=[[0xFFE3, ord("a")], [0xFF08]])  # ctrl+a BackSpace
                    time.sleep(0.7)  # idle: borrowed keycodes are given back, as in real use
                    start = time.monotonic()
                    rt.call("type", text=text)
                    times.append(time.monotonic() - start)
                    if not probe.wait_text(text, since, timeout=10):
                        wrong += 1
                print(f"{name:32s} median {statistics.median(times) * 1000:7.1f} ms"
                      f"  max {max(times) * 1000:7.1f} ms  wrong {wrong}/{args.runs}")
        finally:
            desktop.close()


if __name__ == "__main__":
    main()
