//! `--listen PATH`: the framed protocol on a Unix socket, one connection at a time, through
//! the real binary: reconnects start from a clean decoder, a half frame is forgotten with its
//! connection, kept slots do not outlive the connection that kept them, SIGTERM unlinks.

use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Xvfb;
use serde_json::{json, Value};

struct Listening {
    child: Child,
    path: PathBuf,
    _dir: TempDir,
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "deskgate-capture-listen-{tag}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn is_socket(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_socket())
}

impl Listening {
    fn start(display: &str, tag: &str, prepare: impl FnOnce(&Path)) -> Self {
        let dir = TempDir::new(tag);
        let path = dir.0.join("capture.sock");
        prepare(&path);
        let child = Command::new(env!("CARGO_BIN_EXE_deskgate-capture"))
            .args(["--display", display, "--listen"])
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn deskgate-capture --listen");
        let mut me = Self {
            child,
            path,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while UnixStream::connect(&me.path).is_err() {
            assert!(me.child.try_wait().unwrap().is_none(), "helper exited");
            assert!(Instant::now() < deadline, "socket never listened");
            std::thread::sleep(Duration::from_millis(10));
        }
        me
    }

    fn connect(&self) -> Conn {
        let s = UnixStream::connect(&self.path).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        Conn(s)
    }

    fn terminate(&mut self) -> (std::process::ExitStatus, Duration) {
        let started = Instant::now();
        // SAFETY: signalling our own child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let deadline = started + Duration::from_secs(5);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (status, started.elapsed());
            }
            assert!(Instant::now() < deadline, "no exit after SIGTERM");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Conn(UnixStream);

impl Conn {
    fn send_raw(&mut self, bytes: &[u8]) {
        self.0.write_all(bytes).unwrap();
    }

    fn send(&mut self, request: Value) {
        let body = request.to_string();
        let mut frame = (body.len() as u32).to_le_bytes().to_vec();
        frame.extend_from_slice(body.as_bytes());
        self.send_raw(&frame);
    }

    fn part(&mut self) -> Vec<u8> {
        let mut len = [0u8; 4];
        self.0.read_exact(&mut len).expect("a response");
        let mut buf = vec![0u8; u32::from_le_bytes(len) as usize];
        self.0.read_exact(&mut buf).unwrap();
        buf
    }

    fn receive(&mut self) -> (Value, Vec<u8>) {
        let header = serde_json::from_slice(&self.part()).unwrap();
        (header, self.part())
    }

    fn request(&mut self, request: Value) -> Value {
        self.send(request);
        self.receive().0
    }
}

#[test]
fn serves_one_connection_after_another_with_a_clean_decoder() {
    let x = Xvfb::start(320, 240);
    // A stale socket from a previous run is replaced.
    let mut h = Listening::start(&x.display, "serve", |path| {
        drop(std::os::unix::net::UnixListener::bind(path).unwrap());
        assert!(is_socket(path));
    });
    let mode = std::fs::metadata(&h.path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o660, "socket mode {mode:o}");

    let mut a = h.connect();
    assert_eq!(
        a.request(json!({"id": 1, "op": "ping"})),
        json!({"id": 1, "ok": true})
    );
    let kept = a.request(json!({"id": 2, "op": "capture", "format": "png", "keep": "k"}));
    assert_eq!(kept["ok"], true, "{kept}");
    let same = a.request(json!({"id": 3, "op": "compare", "slot": "k", "x": 5, "y": 5}));
    assert_eq!(same["same"], true, "{same}");
    // A second worker waits in the backlog while the first is served.
    let mut b = h.connect();
    b.send(json!({"id": "b1", "op": "ping"}));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        a.request(json!({"id": 4, "op": "ping"})),
        json!({"id": 4, "ok": true})
    );
    drop(a);
    assert_eq!(b.receive().0, json!({"id": "b1", "ok": true}));
    // Slots were the first connection's.
    let gone = b.request(json!({"id": "b2", "op": "compare", "slot": "k", "x": 5, "y": 5}));
    assert_eq!(gone["error"]["kind"], "no_snapshot", "{gone}");

    // Half a frame (a length and part of its body), then the connection closes.
    b.send_raw(&[40, 0, 0, 0, b'{', b'"', b'i']);
    drop(b);
    let mut c = h.connect();
    assert_eq!(
        c.request(json!({"id": 5, "op": "ping"})),
        json!({"id": 5, "ok": true})
    );
    // Half a length prefix, too.
    c.send_raw(&[9, 0]);
    drop(c);
    let mut d = h.connect();
    assert_eq!(d.request(json!({"id": 6, "op": "info"}))["width"], 320);

    // A settle wait ends when its connection closes; the next connection is served at once.
    d.send(json!({"id": 7, "op": "settle", "quiet_ms": 2000, "max_ms": 30000}));
    std::thread::sleep(Duration::from_millis(50));
    drop(d);
    let started = Instant::now();
    let mut e = h.connect();
    assert_eq!(
        e.request(json!({"id": 8, "op": "ping"})),
        json!({"id": 8, "ok": true})
    );
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );

    // SIGTERM with a connection open: exits 0 promptly, the socket is gone.
    let (status, took) = h.terminate();
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert!(!h.path.exists(), "socket left behind");
    drop(e);
}

#[test]
fn refuses_to_replace_a_file_that_is_not_a_socket() {
    let dir = TempDir::new("refuse");
    let path = dir.0.join("capture.sock");
    std::fs::write(&path, b"not a socket").unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_deskgate-capture"))
        .args(["--display", ":4999", "--listen"])
        .arg(&path)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success());
    assert_eq!(std::fs::read(&path).unwrap(), b"not a socket");
}

#[test]
fn a_restrictive_umask_still_gives_0660() {
    // The helper sets the mode itself: a umask of 0077 in its environment does not matter.
    let x = Xvfb::start(64, 64);
    let dir = TempDir::new("umask");
    let path = dir.0.join("capture.sock");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 077; exec {} --display {} --listen {}",
            env!("CARGO_BIN_EXE_deskgate-capture"),
            x.display,
            path.display()
        ))
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while UnixStream::connect(&path).is_err() {
        assert!(Instant::now() < deadline, "socket never listened");
        std::thread::sleep(Duration::from_millis(10));
    }
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o660);
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert!(child.wait().unwrap().success());
    assert!(!path.exists());
}
