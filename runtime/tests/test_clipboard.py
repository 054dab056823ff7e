"""The CLIPBOARD selection against a real peer (xclip)."""
import shutil
import subprocess

import pytest
from conftest import wait_until

pytestmark = pytest.mark.skipif(not shutil.which("xclip"), reason="xclip is not installed")


def xclip_out(desktop):
    return subprocess.run(["xclip", "-o", "-selection", "clipboard"], env=desktop.env,
                          capture_output=True, timeout=20).stdout.decode("utf-8")


def xclip_in(desktop, text):
    # xclip forks a child that owns the selection; it exits when someone else takes it.
    # The parent may exit before the child has taken ownership: wait until it has.
    subprocess.run(["xclip", "-i", "-selection", "clipboard"], env=desktop.env,
                   input=text.encode("utf-8"), stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=20, check=True)
    assert wait_until(lambda: subprocess.run(
        ["xclip", "-o", "-selection", "clipboard"], env=desktop.env, capture_output=True,
        timeout=20).stdout == text.encode("utf-8"), 10)


def test_write_then_xclip_reads(rt, desktop):
    text = "clip ✓ wörld 日本語\nline two"
    rt.call("clipboard_write", text=text)
    assert xclip_out(desktop) == text
    assert rt.call("clipboard_read") == {"text": text}


def test_xclip_writes_then_runtime_reads(rt, desktop):
    text = "from xclip — ✓ 本"
    xclip_in(desktop, text)
    assert rt.call("clipboard_read") == {"text": text}


def test_one_megabyte_round_trips_both_ways(rt, desktop):
    big = ("0123456789abcdef" * 65536)[:1_000_000] + "✓"
    rt.call("clipboard_write", text=big)
    assert xclip_out(desktop) == big
    big2 = "é" * 600_000
    xclip_in(desktop, big2)
    assert rt.call("clipboard_read") == {"text": big2}
