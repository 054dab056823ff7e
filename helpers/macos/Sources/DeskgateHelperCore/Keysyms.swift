/// X keysyms (what the worker sends on every platform) as macOS keys: a virtual key code
/// (Carbon's kVK_* values, the ANSI layout's positions), a modifier, or a character to type as
/// Unicode when the keyboard layout has no key for it. The executable asks the active layout
/// first (UCKeyTranslate) and uses `ansiKeyCode` only as the fallback.
public enum MacModifier: String, CaseIterable { case command, shift, option, control }

public enum MacKey: Equatable {
    case virtualKey(UInt16)
    case modifier(MacModifier, keyCode: UInt16)
    case character(Character)
}

public enum KeysymError: Error, Equatable, CustomStringConvertible {
    case unsupported(Int64)
    public var description: String {
        if case let .unsupported(k) = self { return "keysym 0x\(String(k, radix: 16)) has no key on macOS" }
        return "unsupported keysym"
    }
}

public enum Keysyms {
    /// Keys that are not characters.
    static let special: [Int64: UInt16] = [
        0xFF08: 0x33, 0xFF09: 0x30, 0xFE20: 0x30, 0xFF0D: 0x24, 0xFF1B: 0x35, 0xFFFF: 0x75, 0xFF63: 0x72,
        0xFF50: 0x73, 0xFF51: 0x7B, 0xFF52: 0x7E, 0xFF53: 0x7C, 0xFF54: 0x7D, 0xFF55: 0x74, 0xFF56: 0x79, 0xFF57: 0x77,
        0xFF8D: 0x4C, 0xFFAA: 0x43, 0xFFAB: 0x45, 0xFFAD: 0x4E, 0xFFAE: 0x41, 0xFFAF: 0x4B, 0xFFBD: 0x51, 0xFF0B: 0x47,
        0xFFB0: 0x52, 0xFFB1: 0x53, 0xFFB2: 0x54, 0xFFB3: 0x55, 0xFFB4: 0x56, 0xFFB5: 0x57, 0xFFB6: 0x58, 0xFFB7: 0x59, 0xFFB8: 0x5B, 0xFFB9: 0x5C,
        0xFFE5: 0x39,
        // F1–F20
        0xFFBE: 0x7A, 0xFFBF: 0x78, 0xFFC0: 0x63, 0xFFC1: 0x76, 0xFFC2: 0x60, 0xFFC3: 0x61, 0xFFC4: 0x62, 0xFFC5: 0x64,
        0xFFC6: 0x65, 0xFFC7: 0x6D, 0xFFC8: 0x67, 0xFFC9: 0x6F, 0xFFCA: 0x69, 0xFFCB: 0x6B, 0xFFCC: 0x71, 0xFFCD: 0x6A,
        0xFFCE: 0x40, 0xFFCF: 0x4F, 0xFFD0: 0x50, 0xFFD1: 0x5A,
        // XF86 volume keys
        0x1008_FF13: 0x48, 0x1008_FF11: 0x49, 0x1008_FF12: 0x4A,
    ]

    /// Modifier keysyms: Super and Hyper (what "cmd"/"meta" parse to) and Meta are Command; Alt is Option.
    static let modifiers: [Int64: (MacModifier, UInt16)] = [
        0xFFE1: (.shift, 0x38), 0xFFE2: (.shift, 0x3C), 0xFFE3: (.control, 0x3B), 0xFFE4: (.control, 0x3E),
        0xFFE9: (.option, 0x3A), 0xFFEA: (.option, 0x3D), 0xFFE7: (.command, 0x37), 0xFFE8: (.command, 0x36),
        0xFFEB: (.command, 0x37), 0xFFEC: (.command, 0x36), 0xFFED: (.command, 0x37), 0xFFEE: (.command, 0x36),
    ]

    /// The ANSI (US) layout's key for each character it has on its base level.
    public static let ansiKeyCode: [Character: UInt16] = {
        let rows: [(String, [UInt16])] = [
            ("asdfhgzxcv", [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09]),
            ("bqweryt123465=97-80]ou[ip", [0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x21, 0x22, 0x23]),
            ("lj'k;\\,/nm.", [0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F]),
            ("` ", [0x32, 0x31]),
        ]
        var map: [Character: UInt16] = [:]
        for (chars, codes) in rows { for (c, k) in zip(chars, codes) { map[c] = k } }
        return map
    }()

    /// The ANSI layout's shifted characters, as (base character).
    public static let ansiShifted: [Character: Character] = {
        let pairs = Array(zip("~!@#$%^&*()_+{}|:\"<>?", "`1234567890-=[]\\;',./"))
        var map = Dictionary(uniqueKeysWithValues: pairs)
        for c in "abcdefghijklmnopqrstuvwxyz" { map[Character(c.uppercased())] = c }
        return map
    }()

    public static func key(_ keysym: Int64) throws -> MacKey {
        if let (m, code) = modifiers[keysym] { return .modifier(m, keyCode: code) }
        if let code = special[keysym] { return .virtualKey(code) }
        if let c = character(keysym) { return .character(c) }
        throw KeysymError.unsupported(keysym)
    }

    /// Latin-1 keysyms are their code points; 0x01000000 + code point is any Unicode character.
    public static func character(_ keysym: Int64) -> Character? {
        var scalar: UInt32?
        if (0x20...0x7E).contains(keysym) || (0xA0...0xFF).contains(keysym) { scalar = UInt32(keysym) }
        if (0x0100_0100...0x0110_FFFF).contains(keysym) { scalar = UInt32(keysym - 0x0100_0000) }
        guard let s = scalar, let u = Unicode.Scalar(s) else { return nil }
        return Character(u)
    }

    /// How a character is pressed on the ANSI layout: its key and whether Shift is needed; nil when the layout lacks it.
    public static func ansiStroke(_ c: Character) -> (keyCode: UInt16, shift: Bool)? {
        if let code = ansiKeyCode[c] { return (code, false) }
        if let base = ansiShifted[c], let code = ansiKeyCode[base] { return (code, true) }
        return nil
    }
}
