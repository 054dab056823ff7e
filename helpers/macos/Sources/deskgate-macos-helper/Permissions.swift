#if os(macOS)
import ApplicationServices
import CoreGraphics
import DeskgateHelperCore

/// The two TCC permissions the helper needs. They belong to the signed helper's code identity
/// (its bundle id and Team ID), so a grant survives updates signed by the same team.
enum Permission: String {
    case accessibility = "Accessibility"
    case screenRecording = "Screen Recording"

    var advice: String {
        switch self {
        case .accessibility:
            return "the Accessibility permission is missing: deskgate-macos-helper cannot send mouse or keyboard input or read windows. Grant it in System Settings → Privacy & Security → Accessibility, then restart the helper (docs/macos.md)"
        case .screenRecording:
            return "the Screen Recording permission is missing: deskgate-macos-helper cannot capture the screen or read window titles. Grant it in System Settings → Privacy & Security → Screen & System Audio Recording, then restart the helper (docs/macos.md)"
        }
    }
}

enum Permissions {
    static func missing() -> [Permission] {
        var out: [Permission] = []
        if !AXIsProcessTrusted() { out.append(.accessibility) }
        if !CGPreflightScreenCaptureAccess() { out.append(.screenRecording) }
        return out
    }

    static func request() {
        let options = [kAXTrustedCheckOptionPrompt.takeUnretainedValue() as String: true] as CFDictionary
        _ = AXIsProcessTrustedWithOptions(options)
        _ = CGRequestScreenCaptureAccess()
    }

    /// Throws the protocol's display_error naming the permission, when it is missing now (checked per request: a grant can be revoked at any time).
    static func require(_ permission: Permission) throws {
        let granted = permission == .accessibility ? AXIsProcessTrusted() : CGPreflightScreenCaptureAccess()
        if !granted { throw HelperFailure("display_error", permission.advice) }
    }
}

#endif
