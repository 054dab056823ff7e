//! The built `deskgate-capture` binary driven over its framed stdin/stdout protocol.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

const TIMEOUT: Duration = Duration::from_secs(20);

pub struct Response {
    pub header: Value,
    pub payload: Vec<u8>,
}

/// `auto` chooses by content alone here, not by how busy the test machine is: a preempted
/// millisecond would otherwise turn its PNG into a JPEG (`auto_reason` "time"). The time
/// budget itself is checked by src/encode/auto.rs's unit tests.
pub fn choice_by_content(cmd: &mut Command) -> &mut Command {
    cmd.env("DESKGATE_CAPTURE_AUTO_MS_PER_MEGAPIXEL", "1000000")
}

pub struct Helper {
    child: Child,
    stdin: Option<ChildStdin>,
    responses: Receiver<Response>,
}

impl Helper {
    /// Start the helper on `display`; `backend` sets DESKGATE_CAPTURE_BACKEND when given.
    pub fn start(display: &str, backend: Option<&str>) -> Self {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_deskgate-capture"));
        cmd.args(["--display", display])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        match backend {
            Some(b) => cmd.env("DESKGATE_CAPTURE_BACKEND", b),
            None => cmd.env_remove("DESKGATE_CAPTURE_BACKEND"),
        };
        choice_by_content(&mut cmd);
        let mut child = cmd.spawn().expect("spawn deskgate-capture");
        let stdin = child.stdin.take();
        let mut stdout = child.stdout.take().unwrap();
        let (tx, responses) = channel();
        // A reader thread turns a hung helper into a test failure instead of a hung test.
        std::thread::spawn(move || {
            while let Some(header) = read_part(&mut stdout) {
                let Some(payload) = read_part(&mut stdout) else {
                    break;
                };
                let header = serde_json::from_slice(&header).expect("header is JSON");
                if tx.send(Response { header, payload }).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            responses,
        }
    }

    pub fn request(&mut self, request: Value) -> Response {
        self.send_raw(request.to_string().as_bytes());
        self.receive()
    }

    /// Send one frame with exactly these body bytes.
    pub fn send_raw(&mut self, body: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(&(body.len() as u32).to_le_bytes()).unwrap();
        stdin.write_all(body).unwrap();
        stdin.flush().unwrap();
    }

    pub fn receive(&mut self) -> Response {
        self.responses
            .recv_timeout(TIMEOUT)
            .expect("helper answered in time")
    }

    /// Close stdin and wait for the helper to exit on its own.
    pub fn finish(mut self) -> ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "helper did not exit after stdin EOF"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_part(r: &mut impl Read) -> Option<Vec<u8>> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len).ok()?;
    let mut buf = vec![0u8; u32::from_le_bytes(len) as usize];
    r.read_exact(&mut buf).ok()?;
    Some(buf)
}
