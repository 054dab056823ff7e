"""Typing into a busy client: a borrowed keycode is bound to another character only once the
client has handled the keys sent through it (it answered a `_NET_WM_PING` sent behind them),
not after a guessed grace period."""
import contextlib
import signal
import time

import pytest

from conftest import Probe, focus_text, keyboard_map, wait_until

SLOW_CLASS = "DeskgateSlowProbe"
SLOW_KEY_MS = 4  # per key press: 40 keys take 160 ms to handle, the old guess allowed 25 ms
BLOCK = 40       # borrowed keycodes on Xvfb's default map (docs/input-runtime.md)


@pytest.fixture(scope="module")
def slow_probe(desktop):
    probe = Probe(desktop, name="slow-probe", geometry="700x500+60+60", color="#663399",
                  **{"class": SLOW_CLASS, "slow-keys": SLOW_KEY_MS})
    yield probe
    probe.proc.terminate()
    probe.proc.wait(5)


def test_type_more_distinct_characters_than_keycodes_into_a_slow_client(rt, slow_probe):
    # 2.5 blocks of distinct characters missing from the keymap: slots are reused twice, each
    # time while the client still has most of the previous block's keys to handle.
    text = "".join(chr(0x4E00 + i) for i in range(BLOCK * 5 // 2)) + " done"
    focus_text(rt, slow_probe, SLOW_CLASS)
    since = slow_probe.mark()
    assert rt.call("type", text=text) == {"typed": len(text)}
    assert slow_probe.wait_text(text, since, timeout=20), slow_probe.text_value(since)


@contextlib.contextmanager
def stopped_probe(rt, desktop, name, at):
    """A probe of its own, its text focused, then stopped (SIGSTOP): it reads nothing, fetches
    nothing and answers no ping until continued. Continued and ended afterwards."""
    wm_class = "Deskgate" + name.capitalize() + "Probe"
    probe = Probe(desktop, name=f"{name}-probe", geometry=f"500x300+{at}+{at}",
                  **{"class": wm_class})
    try:
        focus_text(rt, probe, wm_class)
        probe.proc.send_signal(signal.SIGSTOP)
        yield probe
    finally:
        probe.proc.send_signal(signal.SIGCONT)
        probe.proc.terminate()
        probe.proc.wait(5)


def test_a_client_that_never_answers_costs_a_bounded_wait(rt, desktop):
    # A stopped client neither fetches the keymap nor answers pings: the fallbacks apply
    # (FETCH_WAIT_S, FIRST_WAIT_S once, then the grace), and `type` still returns.
    with stopped_probe(rt, desktop, "stopped", 120):
        text = "".join(chr(0x4E00 + i) for i in range(BLOCK * 5 // 2))
        started = time.monotonic()
        assert rt.call("type", text=text) == {"typed": len(text)}
        assert time.monotonic() - started < 10
        assert rt.call("check")["xtest"] is True  # and the runtime answers on


def test_borrowed_keycodes_stay_bound_until_a_frozen_client_has_handled_its_keys(rt, desktop):
    # The client reads nothing for 1.5 s, longer than the runtime stays idle before it gives
    # borrowed keycodes back (0.5 s): had it given them back, the client would read the keys
    # with them unbound and lose the characters.
    with stopped_probe(rt, desktop, "frozen", 140) as probe:
        since = probe.mark()
        text = "".join(chr(0x4E00 + i) for i in range(BLOCK // 2)) + " ok"
        assert rt.call("type", text=text) == {"typed": len(text)}
        time.sleep(1.5)
        probe.proc.send_signal(signal.SIGCONT)
        assert probe.wait_text(text, since), probe.text_value(since)


def test_a_client_that_goes_away_unanswered_does_not_hold_back_the_restore(rt, desktop):
    with stopped_probe(rt, desktop, "leaving", 160) as probe:
        before = keyboard_map(desktop.display)  # after the probe's start: earlier borrowings are back
        assert rt.call("type", text="日本語✓") == {"typed": 4}
        time.sleep(0.8)  # the runtime went idle and asked the frozen client: no answer
        assert keyboard_map(desktop.display) != before  # still borrowed
        probe.proc.kill()
        probe.proc.wait(5)
        # Well within the 10 s it would wait for a client that is still there.
        assert wait_until(lambda: keyboard_map(desktop.display) == before, 3)
