//! Request dispatch. Owns the X connection, the capture cascade, the kept slots and the
//! encoders for the life of the process; each op lives in its own file.

mod capture;
mod compare;
mod frame;
mod info;
mod settle;

use std::time::Instant;

use crate::contract::{CancelReply, Op, Rect, Reply};
use crate::convert::{pack, PixelLayout, WorkFormat};
use crate::encode::{EncodeError, Encoder, Pixels};
use crate::error::ServiceError;
use crate::inbox::Waiter;
use crate::mask::apply_masks;
use crate::scale::Scaler;
use crate::slots::SlotStore;
use crate::x11::{BackendChoice, Cascade, DamageWatch, Display, RawFrame};

/// The display and its capture backends, present once the connection is up.
pub struct Desktop {
    pub display: Display,
    pub cascade: Cascade,
}

impl Desktop {
    /// Grabs `region` and blacks out `masks` in the grabbed frame itself — the one way both
    /// capture and compare read pixels, so a kept frame and a live patch are always
    /// comparable. Nothing is copied or converted here.
    pub fn grab_masked(
        &mut self,
        region: &Rect,
        masks: &[Rect],
    ) -> Result<Grabbed<'_>, ServiceError> {
        let start = Instant::now();
        let layout = *self.display.layout();
        let (backend, frame) = self.cascade.capture(&self.display, region)?;
        let grab_ms = elapsed_ms(start);
        apply_masks(
            frame.data,
            frame.stride,
            layout.bytes_per_pixel,
            region,
            masks,
        );
        Ok(Grabbed {
            backend,
            grab_ms,
            frame,
            layout,
        })
    }
}

/// A masked frame, still in the capture backend's buffer and the server's layout.
pub struct Grabbed<'a> {
    /// The backend that captured it.
    pub backend: &'static str,
    /// The grab alone, in ms.
    pub grab_ms: f64,
    frame: RawFrame<'a>,
    layout: PixelLayout,
}

impl Grabbed<'_> {
    /// The format kept slots, compare and the scaler/encoder see on this display.
    pub fn format(&self) -> WorkFormat {
        self.layout.work_format()
    }

    /// Copy (or convert) into packed work-format pixels in `out`, reusing its capacity.
    pub fn pack_into(&self, out: &mut Vec<u8>) {
        let f = &self.frame;
        pack(
            f.data,
            f.stride,
            f.width,
            f.height,
            &self.layout,
            self.format(),
            out,
        );
    }

    /// The packed work-format pixels: borrowed straight from the frame when it already is
    /// in that form (32 bpp in a TurboJPEG order: the usual case, zero copies), otherwise
    /// packed or converted into `scratch`.
    pub fn pixels<'s>(&'s self, scratch: &'s mut Vec<u8>) -> Pixels<'s> {
        let f = &self.frame;
        let format = self.format();
        let row = f.width as usize * format.bytes_per_pixel();
        let data = if format.bytes_per_pixel() == self.layout.bytes_per_pixel && f.stride == row {
            &f.data[..row * f.height as usize]
        } else {
            self.pack_into(scratch);
            &scratch[..]
        };
        Pixels {
            data,
            width: f.width,
            height: f.height,
            format,
        }
    }
}

/// Reusable per-process codecs and frame-sized buffers (kept between requests so a
/// capture allocates no full frame).
pub struct Tools {
    pub encoder: Encoder,
    pub scaler: Scaler,
    /// The frame packed or converted, when it cannot be used in place.
    pub frame: Vec<u8>,
    /// The scaler's output.
    pub scaled: Vec<u8>,
}

pub struct Service {
    desktop: Result<Desktop, String>,
    /// Set once the X connection has died; every later request reports it.
    lost: Option<String>,
    slots: SlotStore,
    tools: Tools,
    /// Screen changes, tracked from startup on a connection of its own (for `settle` and `frame`).
    damage: DamageWatch,
}

/// A success: the reply header fields and the (possibly empty) payload.
pub type Outcome = (Reply, Vec<u8>);

impl Service {
    /// Connect to `display` (None = `$DISPLAY`). A failed connection does not stop the
    /// helper: requests are answered with `display_error` naming the cause.
    pub fn connect(display: Option<&str>, choice: BackendChoice) -> Result<Self, EncodeError> {
        let damage = DamageWatch::start(display);
        let desktop = Display::connect(display)
            .map(|display| {
                let cascade = Cascade::new(&display, choice);
                Desktop { display, cascade }
            })
            .map_err(|e| {
                eprintln!("deskgate-capture: {e}");
                e.to_string()
            });
        let tools = Tools {
            encoder: Encoder::new()?,
            scaler: Scaler::default(),
            frame: Vec::new(),
            scaled: Vec::new(),
        };
        Ok(Self {
            desktop,
            lost: None,
            slots: SlotStore::default(),
            tools,
            damage,
        })
    }

    /// A connection ended (`--listen`): drop what belonged to it — the kept slots, so the next
    /// worker never compares against a screenshot it did not take. The X connections, the
    /// damage watcher, the capture backends and the codecs stay for the next connection.
    pub fn end_connection(&mut self) {
        self.slots.clear();
    }

    /// Serve one request. `waiter` is where a `settle` waits (and hears a `cancel`).
    pub fn handle(&mut self, op: &Op, waiter: &mut dyn Waiter) -> Result<Outcome, ServiceError> {
        if let Some(why) = &self.lost {
            return Err(ServiceError::Display(format!(
                "X connection lost earlier: {why}"
            )));
        }
        let desktop = self
            .desktop
            .as_mut()
            .map_err(|why| ServiceError::Display(why.clone()))?;
        let result = match op {
            Op::Ping => Ok((Reply::Pong {}, Vec::new())),
            Op::Info => info::run(desktop).map(|r| (Reply::Info(r), Vec::new())),
            Op::Capture(req) => capture::run(desktop, &mut self.slots, &mut self.tools, req),
            Op::Compare(req) => {
                compare::run(desktop, &mut self.slots, req).map(|r| (Reply::Compare(r), Vec::new()))
            }
            Op::Settle(req) => {
                settle::run(&self.damage, req, waiter).map(|r| (Reply::Settle(r), Vec::new()))
            }
            Op::Frame(req) => frame::run(
                desktop,
                &mut self.slots,
                &mut self.tools,
                &self.damage,
                req,
                waiter,
            ),
            // The server answers cancels itself (it knows whether one ended a wait).
            Op::Cancel => Ok((Reply::Cancel(CancelReply { cancelled: false }), Vec::new())),
        };
        if let Err(ServiceError::Display(why)) = &result {
            eprintln!("deskgate-capture: {why}; answering display_error from now on");
            self.lost = Some(why.clone());
        }
        result
    }
}

/// Milliseconds since `start`, to the microsecond.
pub(crate) fn elapsed_ms(start: Instant) -> f64 {
    (start.elapsed().as_secs_f64() * 1e6).round() / 1e3
}
