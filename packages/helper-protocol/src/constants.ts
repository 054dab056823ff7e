/**
 * Numbers both sides of a helper protocol must agree on. The helpers own them (the Rust
 * capture helper's `request.rs`/`slots.rs`, the Python runtime's modules); the test vectors
 * (`vectors/*.json`, `constants`) hold the same values and every side's tests compare its own
 * constants with them, so a change on one side fails the others until they follow.
 */

// ---- Capture helper (helpers/linux-capture) ----

/** Largest request frame body; a longer one is skipped and answered `bad_request` with id null. */
export const CAPTURE_MAX_REQUEST_BYTES = 65_536;
/** Largest response header the worker accepts (the helper's are a few hundred bytes). Worker side only. */
export const CAPTURE_MAX_RESPONSE_HEADER_BYTES = 1 << 20;
/** Largest response payload the worker accepts: an 8192×8192 `rgb` frame is 192 MiB. Worker side only. */
export const CAPTURE_MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;
/** `scale_to` sides: 1 to this. */
export const CAPTURE_MAX_SCALE = 8192;
/** `compare` radius: 0 to this, default CAPTURE_DEFAULT_RADIUS. */
export const CAPTURE_MAX_RADIUS = 32;
export const CAPTURE_DEFAULT_RADIUS = 4;
/** JPEG quality range and the helper's default (the core's JPEG_QUALITY is the same 75). */
export const CAPTURE_QUALITY_RANGE = [1, 100] as const;
export const CAPTURE_DEFAULT_QUALITY = 75;
/** Slot names (`keep`, `slot`): 1 to this many UTF-8 bytes. */
export const CAPTURE_MAX_SLOT_NAME_BYTES = 64;
/** Kept slots; storing one more evicts the least recently used. */
export const CAPTURE_MAX_SLOTS = 8;
/** Mask rectangles: x, y, width and height within ±this. */
export const CAPTURE_MAX_MASK_COORD = 65_536;
/** `settle`: quiet_ms in this range; max_ms from quiet_ms to SETTLE_MAX_MS_LIMIT; since_ms 0 to SETTLE_MAX_MS_LIMIT. */
export const SETTLE_QUIET_RANGE = [10, 2000] as const;
export const SETTLE_MAX_MS_LIMIT = 30_000;

/** The capture constants under the names of `vectors/capture.json` (the Rust constants, lower case). */
export const CAPTURE_CONSTANTS = {
  max_request_bytes: CAPTURE_MAX_REQUEST_BYTES,
  max_scale: CAPTURE_MAX_SCALE,
  max_radius: CAPTURE_MAX_RADIUS,
  default_radius: CAPTURE_DEFAULT_RADIUS,
  min_quality: CAPTURE_QUALITY_RANGE[0],
  max_quality: CAPTURE_QUALITY_RANGE[1],
  default_quality: CAPTURE_DEFAULT_QUALITY,
  max_slot_name: CAPTURE_MAX_SLOT_NAME_BYTES,
  max_slots: CAPTURE_MAX_SLOTS,
  max_coord: CAPTURE_MAX_MASK_COORD,
  min_quiet_ms: SETTLE_QUIET_RANGE[0],
  max_quiet_ms: SETTLE_QUIET_RANGE[1],
  max_settle_ms: SETTLE_MAX_MS_LIMIT,
} as const;

// ---- Input runtime (runtime/deskgate_runtime) ----

/** Largest request line (newline excluded); a longer one is answered `bad_args`. */
export const INPUT_MAX_LINE_BYTES = 1 << 20;
/** Largest response line the worker accepts (clipboard text, desktop entries). Worker side only. */
export const INPUT_MAX_RESPONSE_LINE_BYTES = 64 * 1024 * 1024;
/** `type` text: at most this many characters (code points). */
export const INPUT_MAX_TEXT_CHARS = 100_000;
/** Key chords: 1–INPUT_MAX_CHORDS chords of 1–INPUT_MAX_CHORD_KEYS keysyms, each 1–INPUT_MAX_KEYSYM. */
export const INPUT_MAX_CHORDS = 32;
export const INPUT_MAX_CHORD_KEYS = 8;
export const INPUT_MAX_KEYSYM = 0x1fffffff;
/** `gate_facts` points and a guard's `at` entries. */
export const INPUT_MAX_GATE_POINTS = 16;
export const INPUT_MAX_GUARD_POINTS = 16;
/** A guard's `facts` token (reported gate facts): 1 to this many characters. */
export const INPUT_MAX_FACTS_TOKEN = 64;
/** Window ids: 1 to this. */
export const INPUT_MAX_WINDOW_ID = 0xffffffff;
/** `key` repeat 1–100, `scroll` amount 0–100, `click` count 1–3. */
export const INPUT_MAX_REPEAT = 100;
export const INPUT_MAX_SCROLL_AMOUNT = 100;
export const INPUT_MAX_CLICK_COUNT = 3;
/** `launch`: at most this many arguments, and this many UTF-8 bytes of argv + env + cwd. */
export const LAUNCH_MAX_ARGS = 64;
export const LAUNCH_MAX_BYTES = 16 * 1024;
/** `desktop_entries`: at most this many files, each at most this many bytes (larger ones are skipped), this many bytes in all. */
export const DESKTOP_ENTRIES_MAX_FILES = 4000;
export const DESKTOP_ENTRY_MAX_BYTES = 64 * 1024;
export const DESKTOP_ENTRIES_MAX_TOTAL_BYTES = 8 * 1024 * 1024;

/** The input constants under the names of `vectors/input.json` (the Python constants, lower case). */
export const INPUT_CONSTANTS = {
  max_line: INPUT_MAX_LINE_BYTES,
  max_text: INPUT_MAX_TEXT_CHARS,
  max_chords: INPUT_MAX_CHORDS,
  max_chord_keys: INPUT_MAX_CHORD_KEYS,
  max_keysym: INPUT_MAX_KEYSYM,
  max_gate_points: INPUT_MAX_GATE_POINTS,
  max_guard_points: INPUT_MAX_GUARD_POINTS,
  max_facts_token: INPUT_MAX_FACTS_TOKEN,
  max_window_id: INPUT_MAX_WINDOW_ID,
  max_args: LAUNCH_MAX_ARGS,
  max_launch_bytes: LAUNCH_MAX_BYTES,
  max_desktop_files: DESKTOP_ENTRIES_MAX_FILES,
  max_desktop_file_bytes: DESKTOP_ENTRY_MAX_BYTES,
  max_desktop_total_bytes: DESKTOP_ENTRIES_MAX_TOTAL_BYTES,
} as const;
