#!/usr/bin/python3
"""Probe app for end-to-end tests: a Tk window that records every input event it gets.

Each event is one JSON line appended (and flushed) to --events, so a test can read what an
application really received: presses and releases with root coordinates, key presses, drag
motion, the Text widget's full contents after every change, and a "ready" line with the
root-coordinate boxes of its parts once the window is mapped and placed.

    /usr/bin/python3 tests/probe/probe_app.py --events /tmp/x.jsonl \
        [--title "deskgate probe"] [--geometry 800x600+0+0] [--color "#3366cc"] \
        [--class DeskgateProbe] [--slow-repaint] [--steady-caret] [--slow-keys MS]

With --slow-repaint, "Click me" repaints the colour area slowly, as a busy app would: nothing
for 400 ms, then 300 ms of animation, then a final colour (FINAL_COLOR), with a "repainted"
line once it is on screen. With --steady-caret the text caret does not blink (a blinking caret
redraws the text box every few hundred ms: the screen is never still). With --slow-keys MS
each key press takes MS milliseconds to handle, as in a busy app: the keys it has read wait
in its queue meanwhile.
"""
import argparse
import json
import os
import signal
import sys
import time
import tkinter as tk

MOTION_THROTTLE_S = 0.02  # at most one motion_drag line per 20 ms, plus the last one
REPAINT_DELAY_MS, ANIMATION_MS, FRAME_MS = 400, 300, 20
FINAL_COLOR = "#00cc44"


class Recorder:
    def __init__(self, path):
        self._file = open(path, "a", encoding="utf-8")

    def __call__(self, **event):
        event.setdefault("t", round(time.monotonic(), 4))
        self._file.write(json.dumps(event, ensure_ascii=False) + "\n")
        self._file.flush()

    def close(self):
        self._file.close()


def box(widget):
    return {"x": widget.winfo_rootx(), "y": widget.winfo_rooty(),
            "width": widget.winfo_width(), "height": widget.winfo_height()}


class ProbeApp:
    def __init__(self, args):
        self.record = Recorder(args.events)
        self.slow_repaint = args.slow_repaint
        self.slow_keys_s = args.slow_keys / 1000
        # Tk title-cases the main window's class ("DeskgateProbe" -> "Deskgateprobe"), so the
        # visible window is a Toplevel whose class is set exactly; the main window stays hidden.
        self.tk_root = tk.Tk(className=args.wm_class)
        self.tk_root.withdraw()
        instance = args.wm_class[:1].lower() + args.wm_class[1:]
        self.root = tk.Toplevel(self.tk_root, class_=args.wm_class, name=instance)
        self.root.title(args.title)
        self.root.geometry(args.geometry)
        self.root.protocol("WM_DELETE_WINDOW", self.quit)
        self._build(args.color)
        if args.steady_caret:
            self.text.configure(insertofftime=0)
        self._bind_recording()
        self._drag_last = None      # (x_root, y_root, state) of the newest unrecorded motion
        self._drag_recorded_at = 0.0
        self._ready_sent = False
        self._last_layout = None
        self.root.after(50, self._wait_until_placed)
        self.root.after(100, self._tick)  # lets Python run signal handlers under mainloop

    def _build(self, color):
        top = tk.Frame(self.root)
        top.pack(side="top", fill="x")
        self.button = tk.Button(top, text="Click me", command=self._on_button)
        self.button.pack(side="left", padx=8, pady=8)
        self.text = tk.Text(top, height=8, width=60, undo=False)
        self.text.pack(side="left", fill="x", expand=True, padx=8, pady=8)
        self.color_area = tk.Canvas(self.root, background=color, highlightthickness=0,
                                    borderwidth=0)
        self.color_area.pack(side="top", fill="both", expand=True)
        self._watch_text_changes()
        # Tk's Text binds Control-a to "line start"; agents expect select-all there.
        self.text.bind("<Control-a>", self._select_all)
        self.text.focus_set()

    def _watch_text_changes(self):
        """Wrap the Text widget's Tcl command so every insert/delete/replace is recorded."""
        widget = self.text._w
        original = widget + "_probe_orig"
        self.root.tk.call("rename", widget, original)

        def proxy(*args):
            result = self.root.tk.call((original,) + args)
            if args and args[0] in ("insert", "delete", "replace"):
                self.record(type="text", value=self.root.tk.call(original, "get", "1.0", "end-1c"))
            return result

        self.root.tk.createcommand(widget, proxy)

    def _bind_recording(self):
        # A bindtag of our own, first on every widget, records without breaking Tk's bindings.
        for widget in (self.root, self.button, self.text, self.color_area,
                       self.button.master):
            widget.bindtags(("ProbeRec",) + widget.bindtags())
        rec = self.root.bind_class
        rec("ProbeRec", "<ButtonPress>", lambda e: self._on_button_event("press", e))
        rec("ProbeRec", "<ButtonRelease>", lambda e: self._on_button_event("release", e))
        rec("ProbeRec", "<KeyPress>", self._on_key)
        rec("ProbeRec", "<KeyRelease>", self._on_key_release)
        rec("ProbeRec", "<B1-Motion>", self._on_drag_motion)
        rec("ProbeRec", "<MouseWheel>", lambda e: self._on_wheel("wheel", e))
        rec("ProbeRec", "<Shift-MouseWheel>", lambda e: self._on_wheel("shift_wheel", e))

    # -- event handlers ---------------------------------------------------------------
    def _on_button(self):
        self.record(type="button", name="click_me")
        if self.slow_repaint:
            self.root.after(REPAINT_DELAY_MS, lambda: self._animate(ANIMATION_MS // FRAME_MS))

    def _animate(self, frames_left):
        if frames_left > 0:
            shade = 40 + (frames_left * 37) % 200
            self.color_area.configure(background=f"#{shade:02x}{255 - shade:02x}{shade // 2:02x}")
            self.root.after(FRAME_MS, lambda: self._animate(frames_left - 1))
            return
        # Stamped before the draw: a stamp taken after it could come later than the frame
        # showing it, if this process is descheduled in between.
        drawn_from = round(time.monotonic(), 4)
        self.color_area.configure(background=FINAL_COLOR)
        self.root.update_idletasks()
        self.record(type="repainted", color=FINAL_COLOR, t=drawn_from)

    def _on_button_event(self, kind, e):
        if kind == "release" and e.num == 1:
            self._flush_drag()
        self.record(type=kind, button=e.num, x_root=e.x_root, y_root=e.y_root, state=e.state,
                    widget=self._widget_name(e.widget))
        if kind == "press" and e.num == 1:
            self._drag_recorded_at = 0.0

    def _on_key(self, e):
        self.record(type="key", keysym=e.keysym, char=e.char, state=e.state,
                    keycode=e.keycode, widget=self._widget_name(e.widget))
        if self.slow_keys_s:
            time.sleep(self.slow_keys_s)  # blocks the event loop: the next keys wait, unread

    def _on_key_release(self, e):
        self.record(type="key_release", keysym=e.keysym, state=e.state, keycode=e.keycode)

    def _on_drag_motion(self, e):
        self._drag_last = (e.x_root, e.y_root, e.state)
        now = time.monotonic()
        if now - self._drag_recorded_at >= MOTION_THROTTLE_S:
            self._flush_drag()
            self._drag_recorded_at = now

    def _flush_drag(self):
        if self._drag_last is not None:
            x, y, state = self._drag_last
            self.record(type="motion_drag", x_root=x, y_root=y, state=state)
            self._drag_last = None

    def _on_wheel(self, kind, e):
        self.record(type=kind, delta=e.delta, x_root=e.x_root, y_root=e.y_root, state=e.state)

    def _select_all(self, _event):
        self.text.tag_add("sel", "1.0", "end-1c")
        self.text.mark_set("insert", "end-1c")
        self.record(type="select_all", selection=self.text.get("sel.first", "sel.last")
                    if self.text.tag_ranges("sel") else "")
        return "break"

    def _widget_name(self, widget):
        names = {str(self.button): "button", str(self.text): "text",
                 str(self.color_area): "color_area", str(self.root): "root"}
        return names.get(str(widget), str(widget))

    # -- lifecycle --------------------------------------------------------------------
    def _layout(self):
        return {"window": box(self.root), "button": box(self.button), "text": box(self.text),
                "color_area": box(self.color_area)}

    def _wait_until_placed(self):
        """Send "ready" once the window is viewable and its layout held still for 100 ms."""
        if self.root.winfo_viewable():
            self.root.update_idletasks()
            layout = self._layout()
            if layout == self._last_layout:
                self._ready_sent = True
                self.record(type="ready", pid=os.getpid(), **layout)
                return
            self._last_layout = layout
        self.root.after(50, self._wait_until_placed)

    def _tick(self):
        self.root.after(100, self._tick)

    def quit(self, *_):
        self.tk_root.after_idle(self.tk_root.destroy)

    def run(self):
        self.tk_root.mainloop()
        self.record(type="exit")
        self.record.close()


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--events", required=True, help="JSON-lines file to append events to")
    p.add_argument("--title", default="deskgate probe")
    p.add_argument("--geometry", default="800x600+0+0")
    p.add_argument("--color", default="#3366cc")
    p.add_argument("--class", dest="wm_class", default="DeskgateProbe",
                   help="WM_CLASS class name (Tk className)")
    p.add_argument("--slow-repaint", action="store_true",
                   help="repaint slowly after a click on the button (settled-screenshot tests)")
    p.add_argument("--steady-caret", action="store_true", help="a text caret that does not blink")
    p.add_argument("--slow-keys", type=float, default=0, metavar="MS",
                   help="handle each key press this many milliseconds (a busy app)")
    return p.parse_args(argv)


def main(argv=None):
    app = ProbeApp(parse_args(sys.argv[1:] if argv is None else argv))
    signal.signal(signal.SIGTERM, app.quit)
    signal.signal(signal.SIGINT, app.quit)
    app.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
