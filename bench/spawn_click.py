"""The seed's per-call path: a fresh Python process that opens the display ($DISPLAY), does one
XTest click (press + release + sync) with python-xlib, and exits. Spawned once per click."""
from Xlib import X, display
from Xlib.ext import xtest

d = display.Display()
xtest.fake_input(d, X.ButtonPress, 1)
xtest.fake_input(d, X.ButtonRelease, 1)
d.sync()
d.close()
