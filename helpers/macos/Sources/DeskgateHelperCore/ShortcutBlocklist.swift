/// The seed's macOS system shortcuts, refused by the worker's gates unless the session holds the
/// systemKeyCombos grant (packages/computer-use/src/keys/blocklist.ts, the macOS list). Chords
/// are normalised as there: lowercase, aliases folded (cmd/command/super/win → meta,
/// control → ctrl, option → alt), and a chord is caught when its modifiers include a listed
/// combo's and it presses the combo's key ("cmd+shift+tab" is meta+tab, "cmd+q+a" is meta+q).
public enum ShortcutBlocklist {
    public struct Combo: Equatable {
        public let combo: String
        public let why: String
    }

    public static let macOS: [Combo] = [
        Combo(combo: "meta+q", why: "quits the frontmost application"),
        Combo(combo: "shift+meta+q", why: "logs out of the session"),
        Combo(combo: "alt+meta+escape", why: "opens the Force Quit dialog"),
        Combo(combo: "meta+tab", why: "switches to another application"),
        Combo(combo: "meta+space", why: "opens Spotlight, which launches apps outside the granted ones"),
        Combo(combo: "ctrl+meta+q", why: "locks the screen"),
    ]

    static let aliases: [String: String] = [
        "ctrl": "ctrl", "control": "ctrl", "alt": "alt", "option": "alt", "opt": "alt", "shift": "shift",
        "meta": "meta", "super": "meta", "cmd": "meta", "command": "meta", "win": "meta",
    ]
    static let keyAliases: [String: String] = ["esc": "escape", "return": "enter", " ": "space", "spacebar": "space"]
    static let modifierOrder = ["ctrl", "alt", "shift", "meta"]

    /// A chord's modifiers (canonical order) and its other keys, lowercased; nil for an empty part ("ctrl++" is ctrl and plus).
    public static func parse(_ text: String) -> (modifiers: [String], keys: [String])? {
        var parts = text.lowercased().split(separator: "+", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if parts.count >= 2, parts.suffix(2).allSatisfy(\.isEmpty) { parts.removeLast(2); parts.append("plus") }
        guard !parts.isEmpty, !parts.contains(where: \.isEmpty) else { return nil }
        var modifiers = Set<String>(), keys: [String] = []
        for part in parts {
            if let m = aliases[part] { modifiers.insert(m) } else { keys.append(keyAliases[part] ?? part) }
        }
        return (modifierOrder.filter(modifiers.contains), keys)
    }

    /// The listed shortcut the chord would send, or nil. Most modifiers first, so shift+cmd+q is "logs out".
    public static func blocked(_ text: String) -> Combo? {
        guard let chord = parse(text) else { return nil }
        let listed = macOS.compactMap { combo -> (Combo, [String], String)? in
            guard let p = parse(combo.combo), let key = p.keys.first else { return nil }
            return (combo, p.modifiers, key)
        }.sorted { $0.1.count > $1.1.count }
        for key in chord.keys {
            if let hit = listed.first(where: { $0.2 == key && $0.1.allSatisfy(chord.modifiers.contains) }) { return hit.0 }
        }
        return nil
    }
}

extension String {
    func trimmingCharacters(in set: CharacterSetLike) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}

/// Whitespace without Foundation (the core imports nothing but the standard library).
public struct CharacterSetLike {
    let test: (Character) -> Bool
    public static let whitespaces = CharacterSetLike(test: { $0 == " " || $0 == "\t" })
    func contains(_ c: Character) -> Bool { test(c) }
}
extension Substring {
    func trimmingCharacters(in set: CharacterSetLike) -> String { String(self).trimmingCharacters(in: set) }
}
