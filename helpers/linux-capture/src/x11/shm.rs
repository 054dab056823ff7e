//! MIT-SHM capture: the server writes pixels straight into a System V shared-memory
//! segment, so nothing crosses the socket. This is the only module with `unsafe`
//! (shmget/shmat/shmdt and the view into the mapped segment).

use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::shm::{self, ConnectionExt as _};
use x11rb::protocol::xproto::ImageFormat;

use super::{Backend, Display, RawFrame, X11Error};
use crate::contract::Rect;

pub struct ShmBackend {
    segment: Option<Segment>,
    width: u32,
    height: u32,
    stride: usize,
    len: usize,
}

impl ShmBackend {
    /// Check that the server offers MIT-SHM ≥ 1.1, then attach a segment sized for the
    /// whole root window, so a server that cannot see our segments (another IPC
    /// namespace, another user) is detected before the first capture.
    pub fn probe(display: &Display) -> Result<Self, X11Error> {
        let conn = display.conn();
        if conn
            .extension_information(shm::X11_EXTENSION_NAME)?
            .is_none()
        {
            return Err(X11Error::Unsupported(
                "the X server has no MIT-SHM extension".into(),
            ));
        }
        let v = conn
            .shm_query_version()?
            .reply()
            .map_err(X11Error::reply("ShmQueryVersion"))?;
        if (v.major_version, v.minor_version) < (1, 1) {
            return Err(X11Error::Unsupported(format!(
                "MIT-SHM {}.{} is too old (need 1.1)",
                v.major_version, v.minor_version
            )));
        }
        let root = display.root_rect()?;
        let mut backend = Self {
            segment: None,
            width: 0,
            height: 0,
            stride: 0,
            len: 0,
        };
        backend.segment_for(
            display,
            display.layout().stride(root.width) * root.height as usize,
        )?;
        Ok(backend)
    }

    /// A segment of at least `len` bytes, reusing the current one when it is big enough.
    fn segment_for(&mut self, display: &Display, len: usize) -> Result<&Segment, X11Error> {
        if self.segment.as_ref().is_none_or(|s| s.size < len) {
            self.release(display);
            self.segment = Some(Segment::create(display, len)?);
        }
        Ok(self.segment.as_ref().expect("segment was just created"))
    }

    fn release(&mut self, display: &Display) {
        if let Some(segment) = self.segment.take() {
            // Best effort: if the server is gone it has forgotten the segment anyway.
            if let Ok(cookie) = display.conn().shm_detach(segment.seg) {
                let _ = cookie.check();
            }
        }
    }
}

impl Backend for ShmBackend {
    fn name(&self) -> &'static str {
        "shm"
    }

    fn grab(&mut self, display: &Display, rect: &Rect) -> Result<(), X11Error> {
        let stride = display.layout().stride(rect.width);
        let len = stride * rect.height as usize;
        let root = display.root();
        let segment = self.segment_for(display, len)?;
        let reply = display
            .conn()
            .shm_get_image(
                root,
                rect.x as i16,
                rect.y as i16,
                rect.width as u16,
                rect.height as u16,
                !0,
                ImageFormat::Z_PIXMAP.into(),
                segment.seg,
                0,
            )?
            .reply()
            .map_err(X11Error::reply("ShmGetImage"));
        let reply = match reply {
            Ok(r) => r,
            Err(e) => {
                // A segment the server cannot use now will not work later either.
                self.release(display);
                return Err(e);
            }
        };
        if (reply.size as usize) < len {
            return Err(X11Error::Unsupported(format!(
                "ShmGetImage wrote {} bytes for a {}x{} image (expected {len})",
                reply.size, rect.width, rect.height
            )));
        }
        (self.width, self.height, self.stride, self.len) = (rect.width, rect.height, stride, len);
        Ok(())
    }

    fn frame(&mut self) -> RawFrame<'_> {
        let len = self.len;
        let data = self.segment.as_mut().map_or(&mut [][..], |s| s.bytes(len));
        RawFrame {
            data,
            stride: self.stride,
            width: self.width,
            height: self.height,
        }
    }
}

/// A System V segment attached both here and in the X server. Dropping it unmaps our
/// side; the server's side goes with `ShmBackend::release` or when the client disconnects.
struct Segment {
    addr: *mut u8,
    size: usize,
    seg: shm::Seg,
}

impl Segment {
    fn create(display: &Display, size: usize) -> Result<Self, X11Error> {
        let size = size.max(1).next_multiple_of(4096);
        let os = |what: &str| {
            X11Error::Unsupported(format!(
                "{what} failed: {}",
                std::io::Error::last_os_error()
            ))
        };
        // SAFETY: plain syscalls; every result is checked before use.
        let shmid = unsafe { libc::shmget(libc::IPC_PRIVATE, size, libc::IPC_CREAT | 0o600) };
        if shmid < 0 {
            return Err(os("shmget"));
        }
        // SAFETY: shmid is a segment we just created; a null address lets the kernel choose.
        let addr = unsafe { libc::shmat(shmid, std::ptr::null(), 0) };
        if addr as isize == -1 {
            let err = os("shmat");
            // SAFETY: removing the segment we created and could not map.
            unsafe { libc::shmctl(shmid, libc::IPC_RMID, std::ptr::null_mut()) };
            return Err(err);
        }
        let attached = attach(display, shmid);
        // Mark for removal right away: the kernel frees it once both sides detach, so a
        // crash can never leak segments. Linux allows this after both attachments exist.
        // SAFETY: shmid is ours; a null buf is valid for IPC_RMID.
        unsafe { libc::shmctl(shmid, libc::IPC_RMID, std::ptr::null_mut()) };
        match attached {
            Ok(seg) => Ok(Self {
                addr: addr.cast(),
                size,
                seg,
            }),
            Err(e) => {
                // SAFETY: addr came from a successful shmat above.
                unsafe { libc::shmdt(addr) };
                Err(e)
            }
        }
    }

    fn bytes(&mut self, len: usize) -> &mut [u8] {
        // SAFETY: addr maps `size` bytes for as long as self lives, and `&mut self` makes
        // this the only view of them. The server only writes during ShmGetImage, whose
        // reply has been received before any frame is lent out, and the next grab (which
        // needs `&mut` of the backend) cannot start while this borrow lives.
        unsafe { std::slice::from_raw_parts_mut(self.addr, len.min(self.size)) }
    }
}

fn attach(display: &Display, shmid: i32) -> Result<shm::Seg, X11Error> {
    let conn = display.conn();
    let seg = conn
        .generate_id()
        .map_err(X11Error::reply_or_id("ShmAttach"))?;
    conn.shm_attach(seg, shmid as u32, false)?
        .check()
        .map_err(X11Error::reply(
            "ShmAttach (is the X server sharing this IPC namespace?)",
        ))?;
    Ok(seg)
}

impl Drop for Segment {
    fn drop(&mut self) {
        // SAFETY: addr came from shmat and is detached exactly once.
        unsafe { libc::shmdt(self.addr.cast()) };
    }
}
