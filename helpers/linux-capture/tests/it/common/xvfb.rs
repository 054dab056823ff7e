//! A private Xvfb per test, killed on drop, plus the drawing calls tests need.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    ChangeWindowAttributesAux, ConnectionExt as _, CreateGCAux, CreateWindowAux, ImageFormat,
    Window, WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::COPY_DEPTH_FROM_PARENT;

/// Display numbers handed out in this test process; starts at 50 to stay clear of
/// desktops other tools run at low numbers.
static NEXT_DISPLAY: AtomicU32 = AtomicU32::new(50);

/// A display is taken while its lock file names a live process. Lock files of servers that
/// were killed stay behind; Xvfb itself replaces those, so they must not be skipped.
fn display_in_use(n: u32) -> bool {
    std::fs::read_to_string(format!("/tmp/.X{n}-lock")).is_ok_and(|pid| {
        let pid = pid.trim();
        !pid.is_empty() && Path::new(&format!("/proc/{pid}")).exists()
    })
}

pub struct Xvfb {
    child: Child,
    pub display: String,
    /// Our own client connection: draws windows and keeps the server from resetting.
    pub conn: RustConnection,
    pub root: Window,
}

impl Xvfb {
    /// Whether this machine lets us give a child its own IPC namespace (needs root).
    pub fn can_isolate_ipc() -> bool {
        Command::new("unshare")
            .args(["--ipc", "true"])
            .status()
            .is_ok_and(|s| s.success())
    }

    pub fn start(width: u32, height: u32) -> Self {
        Self::start_with(width, height, false)
    }

    /// With `own_ipc`, the server runs in its own IPC namespace (`unshare --ipc`), like an
    /// X server in another container: it cannot see our SysV segments, so MIT-SHM fails.
    pub fn start_with(width: u32, height: u32, own_ipc: bool) -> Self {
        for _ in 0..50 {
            let n = NEXT_DISPLAY.fetch_add(1, Ordering::SeqCst);
            if display_in_use(n) {
                continue;
            }
            if let Some(x) = Self::try_start(n, width, height, own_ipc) {
                return x;
            }
        }
        panic!("could not start Xvfb on any display from 50 up");
    }

    fn try_start(n: u32, width: u32, height: u32, own_ipc: bool) -> Option<Self> {
        let display = format!(":{n}");
        let mut cmd = if own_ipc {
            let mut c = Command::new("unshare");
            c.args(["--ipc", "--", "Xvfb"]);
            c
        } else {
            Command::new("Xvfb")
        };
        let mut child = cmd
            .args([
                &display,
                "-screen",
                "0",
                &format!("{width}x{height}x24"),
                "-nolisten",
                "tcp",
                "-noreset",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb is installed (apt-get install xvfb)");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if child.try_wait().expect("poll Xvfb").is_some() {
                return None; // lost a race for this display number
            }
            if let Ok((conn, screen)) = x11rb::connect(Some(&display)) {
                let root = conn.setup().roots[screen].root;
                return Some(Self {
                    child,
                    display,
                    conn,
                    root,
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
        None
    }

    /// An unmanaged window filled with `rgb` (0xRRGGBB), mapped and on screen when this returns.
    pub fn window(&self, x: i16, y: i16, width: u16, height: u16, rgb: u32) -> Window {
        let win = self.conn.generate_id().unwrap();
        let aux = CreateWindowAux::new()
            .background_pixel(rgb)
            .override_redirect(1);
        self.conn
            .create_window(
                COPY_DEPTH_FROM_PARENT,
                win,
                self.root,
                x,
                y,
                width,
                height,
                0,
                WindowClass::INPUT_OUTPUT,
                0,
                &aux,
            )
            .unwrap();
        self.conn.map_window(win).unwrap();
        self.sync();
        win
    }

    pub fn recolor(&self, win: Window, rgb: u32) {
        let aux = ChangeWindowAttributesAux::new().background_pixel(rgb);
        self.conn.change_window_attributes(win, &aux).unwrap();
        self.conn.clear_area(false, win, 0, 0, 0, 0).unwrap();
        self.sync();
    }

    /// Round-trip so every drawing request has been processed by the server.
    pub fn sync(&self) {
        self.conn.get_input_focus().unwrap().reply().unwrap();
    }

    /// Run `xrandr` against this server, panicking with its stderr on failure.
    pub fn xrandr(&self, args: &[&str]) {
        let out = Command::new("xrandr")
            .arg("--display")
            .arg(&self.display)
            .args(args)
            .output()
            .expect("xrandr is installed");
        assert!(
            out.status.success(),
            "xrandr {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Stop the server now (to test a lost connection); drop is then a no-op.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        self.kill();
    }
}

impl Xvfb {
    /// An unmanaged window showing `rgb(x, y)` (window coordinates), mapped and drawn when
    /// this returns. Assumes the usual depth-24, 32 bpp, LSB-first server (BGRX pixels).
    pub fn image(
        &self,
        x: i16,
        y: i16,
        width: u16,
        height: u16,
        rgb: impl Fn(u32, u32) -> [u8; 3],
    ) -> Window {
        let win = self.window(x, y, width, height, 0);
        let gc = self.conn.generate_id().unwrap();
        self.conn.create_gc(gc, win, &CreateGCAux::new()).unwrap();
        // A few rows per request keeps each PutImage under the server's request limit.
        let rows = (60_000 / (usize::from(width) * 4)).max(1) as u16;
        for top in (0..height).step_by(rows.into()) {
            let h = rows.min(height - top);
            let data: Vec<u8> = (top..top + h)
                .flat_map(|py| (0..width).map(move |px| (u32::from(px), u32::from(py))))
                .flat_map(|(px, py)| {
                    let [r, g, b] = rgb(px, py);
                    [b, g, r, 0]
                })
                .collect();
            self.conn
                .put_image(
                    ImageFormat::Z_PIXMAP,
                    win,
                    gc,
                    width,
                    h,
                    0,
                    top as i16,
                    0,
                    24,
                    &data,
                )
                .unwrap();
        }
        self.sync();
        win
    }
}
