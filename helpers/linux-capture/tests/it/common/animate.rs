//! A test X client that repaints a window on a timer, like an app animating or redrawing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    ChangeWindowAttributesAux, ConnectionExt as _, CreateWindowAux, WindowClass,
};
use x11rb::COPY_DEPTH_FROM_PARENT;

pub struct Animation {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<(Instant, u32)>>,
}

impl Animation {
    /// Repaint a 100×100 window every `period`, for `length` (None: until stopped), on a
    /// connection of its own. The window is mapped before this returns.
    pub fn start(display: &str, period: Duration, length: Option<Duration>) -> Self {
        let (conn, screen) = x11rb::connect(Some(display)).expect("animation connects");
        let root = conn.setup().roots[screen].root;
        let win = conn.generate_id().unwrap();
        let aux = CreateWindowAux::new()
            .background_pixel(0x000000)
            .override_redirect(1);
        conn.create_window(
            COPY_DEPTH_FROM_PARENT,
            win,
            root,
            200,
            200,
            100,
            100,
            0,
            WindowClass::INPUT_OUTPUT,
            0,
            &aux,
        )
        .unwrap();
        conn.map_window(win).unwrap();
        conn.get_input_focus().unwrap().reply().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            let (mut last, mut frames) = (start, 0u32);
            while !flag.load(Ordering::SeqCst) && length.is_none_or(|l| start.elapsed() < l) {
                let colour = if frames % 2 == 0 { 0xff8800 } else { 0x0088ff };
                let aux = ChangeWindowAttributesAux::new().background_pixel(colour);
                conn.change_window_attributes(win, &aux).unwrap();
                conn.clear_area(false, win, 0, 0, 0, 0).unwrap();
                conn.get_input_focus().unwrap().reply().unwrap();
                last = Instant::now();
                frames += 1;
                std::thread::sleep(period);
            }
            (last, frames)
        });
        Self {
            stop,
            thread: Some(thread),
        }
    }

    /// Stop (if still running) and return when the last frame was drawn and how many were.
    pub fn finish(mut self) -> (Instant, u32) {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for Animation {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
