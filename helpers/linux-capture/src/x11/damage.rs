//! Screen changes from the X DAMAGE extension, tracked continuously for `settle` and `frame`.
//!
//! A thread of its own, on a connection of its own (so a capture never waits behind it and
//! it never waits behind a capture), subscribes to damage on the root window at report
//! level NonEmpty: the server sends one DamageNotify when the damage region goes from
//! empty to non-empty, and nothing more until the region is emptied again. The thread
//! records the time of each notification and re-arms with DamageSubtract (region None:
//! empty it all). Drawing into any window shows up as damage to the root (damage is
//! tracked per screen and reported to every ancestor's damage objects), so this sees the
//! whole screen.
//!
//! The recorded time is when the notification was read, which trails the drawing by the
//! server's event flush and a thread wake-up (well under a millisecond on a local socket).
//! Damage drawn between a notification and the Subtract that follows it is emptied without
//! a notification of its own; that window is one round trip long.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use x11rb::connection::Connection;
use x11rb::protocol::damage::{ConnectionExt as _, ReportLevel};
use x11rb::protocol::Event;
use x11rb::NONE;

use super::X11Error;

#[derive(Debug, Default)]
struct State {
    last: Option<Instant>,
    events: u64,
    /// Set when the watcher stopped; settle then reports it.
    failed: Option<String>,
}

/// What the watcher knows right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DamageSnapshot {
    /// When the last damage notification was read (None: none since the watch began).
    pub last: Option<Instant>,
    /// Notifications since the watch began.
    pub events: u64,
}

/// Handle to the watcher thread; cheap to query from the request loop.
#[derive(Debug, Clone)]
pub struct DamageWatch {
    state: Arc<Mutex<State>>,
    /// Notified on every damage notification (and when the watcher stops), for `frame`.
    changed: Arc<Condvar>,
}

impl DamageWatch {
    /// Start watching `display` (None = `$DISPLAY`). Never fails here: a watcher that
    /// cannot start (no DAMAGE extension, no display) makes `snapshot` return the reason.
    pub fn start(display: Option<&str>) -> Self {
        let state = Arc::new(Mutex::new(State::default()));
        let changed = Arc::new(Condvar::new());
        let (shared, notify) = (Arc::clone(&state), Arc::clone(&changed));
        let display = display.map(str::to_owned);
        let spawned = std::thread::Builder::new()
            .name("damage".into())
            .spawn(move || {
                if let Err(e) = watch(display.as_deref(), &shared, &notify) {
                    eprintln!("deskgate-capture: damage tracking stopped: {e}");
                    lock(&shared).failed = Some(e.to_string());
                    notify.notify_all();
                }
            });
        if let Err(e) = spawned {
            lock(&state).failed = Some(format!("cannot start the damage thread: {e}"));
        }
        Self { state, changed }
    }

    /// Blocks until more than `events` notifications were seen, or until `until`; answers
    /// the snapshot at that moment (the caller compares its `events`).
    pub fn wait_past(&self, events: u64, until: Instant) -> Result<DamageSnapshot, String> {
        let mut s = lock(&self.state);
        while s.failed.is_none() && s.events <= events {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            s = match self.changed.wait_timeout(s, left) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        match &s.failed {
            Some(why) => Err(why.clone()),
            None => Ok(DamageSnapshot {
                last: s.last,
                events: s.events,
            }),
        }
    }

    pub fn snapshot(&self) -> Result<DamageSnapshot, String> {
        let s = lock(&self.state);
        match &s.failed {
            Some(why) => Err(why.clone()),
            None => Ok(DamageSnapshot {
                last: s.last,
                events: s.events,
            }),
        }
    }
}

/// The state stays consistent even if a holder panicked (it is two plain fields).
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn watch(display: Option<&str>, state: &Mutex<State>, changed: &Condvar) -> Result<(), X11Error> {
    let (conn, screen) = x11rb::connect(display).map_err(|source| X11Error::Connect {
        display: display.unwrap_or("$DISPLAY").to_owned(),
        source,
    })?;
    let root = conn.setup().roots[screen].root;
    conn.damage_query_version(1, 1)?
        .reply()
        .map_err(X11Error::reply("DamageQueryVersion"))?;
    let damage = conn
        .generate_id()
        .map_err(X11Error::reply_or_id("DamageCreate"))?;
    conn.damage_create(damage, root, ReportLevel::NON_EMPTY)?
        .check()
        .map_err(X11Error::reply("DamageCreate"))?;
    loop {
        let mut notified = is_damage(&conn.wait_for_event()?);
        // Take whatever else is already queued, so one Subtract answers a burst.
        while let Some(event) = conn.poll_for_event()? {
            notified |= is_damage(&event);
        }
        if notified {
            {
                let mut s = lock(state);
                s.last = Some(Instant::now());
                s.events += 1;
            }
            changed.notify_all();
            conn.damage_subtract(damage, NONE, NONE)?;
            conn.flush()?;
        }
    }
}

fn is_damage(event: &Event) -> bool {
    matches!(event, Event::DamageNotify(_))
}
