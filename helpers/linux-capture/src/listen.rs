//! `--listen PATH`: the same framed protocol on a Unix socket instead of stdin/stdout, for a
//! worker outside the desktop's container (docs/containers.md). One connection is served at a
//! time, from a fresh decoder (a new `Inbox` and its reader thread) until it closes; then the
//! next one is accepted. What belongs to a connection is dropped when it ends
//! (`Service::end_connection`); the X connection, the damage watcher and the codecs stay.
//!
//! SIGTERM/SIGINT/SIGHUP are blocked in every thread (`block_exit_signals`, called before any
//! thread is spawned) and taken by one thread of their own with `sigwait`, which unlinks the
//! socket and exits 0 at once, whatever the request loop is doing.

use std::ffi::CString;
use std::io::{self, BufReader, BufWriter};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

use crate::inbox::Inbox;
use crate::server;
use crate::service::Service;

/// The socket's mode: the desktop user and its group (the worker reaches it through the group
/// or as root), nobody else.
pub const SOCKET_MODE: u32 = 0o660;

const EXIT_SIGNALS: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

fn exit_signal_set() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset only write the set we own.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in EXIT_SIGNALS {
            libc::sigaddset(&mut set, sig);
        }
        set
    }
}

/// Block the exit signals in the calling thread and so in every thread spawned after this
/// (they inherit the mask): only the signal thread of `serve_socket` takes them. Call it
/// first thing in `main`, before anything spawns a thread.
pub fn block_exit_signals() -> io::Result<()> {
    let set = exit_signal_set();
    // SAFETY: a valid set; the old mask is not needed.
    let rc = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(rc))
    }
}

/// Take the exit signals on a thread of its own: unlink `path`, exit 0.
fn spawn_signal_thread(path: PathBuf) -> io::Result<()> {
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            let set = exit_signal_set();
            let mut sig: libc::c_int = 0;
            // SAFETY: a valid set and an out-parameter we own.
            while unsafe { libc::sigwait(&set, &mut sig) } != 0 {}
            let _ = std::fs::remove_file(&path);
            eprintln!(
                "deskgate-capture: signal {sig}: removed {}, exiting",
                path.display()
            );
            std::process::exit(0);
        })
        .map(|_| ())
}

/// Bind `path`: a stale socket there is removed first (anything else is refused, never
/// deleted); the socket is created with no permission beyond its final mode (umask 0177
/// around bind) and then set to exactly `SOCKET_MODE`, whatever the process umask.
pub fn bind(path: &Path) -> io::Result<UnixListener> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => std::fs::remove_file(path)?,
        Ok(_) => {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} exists and is not a socket", path.display()),
            ))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    // The path must fit sockaddr_un; CString also refuses NUL bytes.
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "socket path has a NUL byte"))?;
    // SAFETY: umask only swaps the process's file mode mask.
    let old = unsafe { libc::umask(0o177) };
    let bound = UnixListener::bind(path);
    // SAFETY: as above, restoring the previous mask.
    unsafe { libc::umask(old) };
    let listener = bound?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(SOCKET_MODE))?;
    Ok(listener)
}

/// Serve `path` until a signal ends the process. Returns only when the socket cannot be
/// bound or accepting fails for good.
pub fn serve_socket(service: &mut Service, path: &Path) -> io::Result<()> {
    let listener = bind(path)?;
    spawn_signal_thread(path.to_path_buf())?;
    eprintln!("deskgate-capture: listening on {}", path.display());
    loop {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            // Transient (ECONNABORTED, EMFILE …): keep listening after a breath.
            Err(e) => {
                eprintln!("deskgate-capture: accept failed: {e}");
                std::thread::sleep(std::time::Duration::from_millis(50));
                continue;
            }
        };
        if let Err(e) = serve_connection(service, &stream) {
            // The worker went away mid-answer (EPIPE, ECONNRESET): nothing to tell anyone.
            eprintln!("deskgate-capture: connection ended: {e}");
        }
        // Unblocks the reader thread if it still waits on this connection.
        let _ = stream.shutdown(std::net::Shutdown::Both);
        service.end_connection();
    }
}

/// One connection with exactly the stdin/stdout protocol: a fresh inbox (decoder and reader
/// thread) in, buffered frames out, until EOF.
pub fn serve_connection(service: &mut Service, stream: &UnixStream) -> io::Result<()> {
    let inbox = Inbox::spawn(BufReader::new(stream.try_clone()?));
    let output = BufWriter::with_capacity(1 << 20, stream.try_clone()?);
    server::serve(service, inbox, output)
}
