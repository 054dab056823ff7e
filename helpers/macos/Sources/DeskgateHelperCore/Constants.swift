/// The numbers both sides of each protocol agree on: the same values as
/// packages/helper-protocol/src/constants.ts, checked against the vectors' `constants` by the tests.
public enum CaptureLimits {
    public static let maxRequestBytes = 65_536
    public static let maxScale: Int64 = 8192
    public static let maxRadius: Int64 = 32
    public static let defaultRadius: Int64 = 4
    public static let minQuality: Int64 = 1
    public static let maxQuality: Int64 = 100
    public static let defaultQuality: Int64 = 75
    public static let maxSlotName = 64
    public static let maxSlots = 8
    public static let maxCoord: Int64 = 65_536
    public static let minQuietMs: Int64 = 10
    public static let maxQuietMs: Int64 = 2000
    public static let maxSettleMs: Int64 = 30_000

    /// Under the vectors' names.
    public static let byName: [String: Int64] = [
        "max_request_bytes": Int64(maxRequestBytes), "max_scale": maxScale, "max_radius": maxRadius,
        "default_radius": defaultRadius, "min_quality": minQuality, "max_quality": maxQuality,
        "default_quality": defaultQuality, "max_slot_name": Int64(maxSlotName), "max_slots": Int64(maxSlots),
        "max_coord": maxCoord, "min_quiet_ms": minQuietMs, "max_quiet_ms": maxQuietMs, "max_settle_ms": maxSettleMs,
    ]
}

public enum InputLimits {
    public static let maxLine = 1 << 20
    public static let maxText = 100_000
    public static let maxChords = 32
    public static let maxChordKeys = 8
    public static let maxKeysym: Int64 = 0x1FFF_FFFF
    public static let maxGatePoints = 16
    public static let maxGuardPoints = 16
    public static let maxFactsToken = 64
    public static let maxWindowId: Int64 = 0xFFFF_FFFF
    public static let maxArgs = 64
    public static let maxLaunchBytes = 16 * 1024
    public static let maxDesktopFiles = 4000
    public static let maxDesktopFileBytes = 64 * 1024
    public static let maxDesktopTotalBytes = 8 * 1024 * 1024
    public static let maxRepeat: Int64 = 100
    public static let maxScrollAmount: Int64 = 100
    public static let maxClickCount: Int64 = 3

    public static let byName: [String: Int64] = [
        "max_line": Int64(maxLine), "max_text": Int64(maxText), "max_chords": Int64(maxChords),
        "max_chord_keys": Int64(maxChordKeys), "max_keysym": maxKeysym, "max_gate_points": Int64(maxGatePoints),
        "max_guard_points": Int64(maxGuardPoints), "max_facts_token": Int64(maxFactsToken), "max_window_id": maxWindowId, "max_args": Int64(maxArgs),
        "max_launch_bytes": Int64(maxLaunchBytes), "max_desktop_files": Int64(maxDesktopFiles),
        "max_desktop_file_bytes": Int64(maxDesktopFileBytes), "max_desktop_total_bytes": Int64(maxDesktopTotalBytes),
    ]
}

/// Every error kind each protocol answers (the vectors' `error_kinds`, in their order).
public enum ErrorKinds {
    public static let capture = ["bad_request", "capture_failed", "no_snapshot", "display_error"]
    public static let input = ["bad_args", "x11_error", "display_error", "not_found", "unsupported", "guard_failed", "quota_exceeded", "launch_failed"]
}
