/// The input protocol's requests (docs/input-runtime.md): one JSON object per line, checked as
/// the Python runtime and the TypeScript schemas do (`vectors/input.json` pins all three). Keys
/// arrive as X keysyms on every platform: the worker's one parser decided them, and a Mac
/// helper maps them to its own key codes (Keysyms.swift).
public enum MouseButton: String, CaseIterable { case left, middle, right }
public enum ScrollDirection: String, CaseIterable { case up, down, left, right }
public enum Modifier: String, CaseIterable { case ctrl, alt, shift, meta }
public enum SurfaceKind: String, CaseIterable { case client, decoration, popup, root, none, unknown }

public struct Point: Equatable {
    public var x: Int64, y: Int64
    public init(x: Int64, y: Int64) { self.x = x; self.y = y }
}

/// What the gates judged, re-checked as the input is sent.
public struct InputGuard: Equatable {
    public var focus: Int64?
    /// The token of reported gate facts the gates judged on (re-read as the input is sent).
    public var facts: String?
    public var at: [(point: Point, kind: SurfaceKind, window: Int64?)]
    public static func == (a: InputGuard, b: InputGuard) -> Bool {
        a.focus == b.focus && a.facts == b.facts && a.at.count == b.at.count && zip(a.at, b.at).allSatisfy { $0.point == $1.point && $0.kind == $1.kind && $0.window == $1.window }
    }
}

public enum InputRequest: Equatable {
    case ping, check, cursorPosition, frontmostApp, listWindows, releaseAll, clipboardRead
    case move(Point, guard: InputGuard?)
    case click(Point, button: MouseButton, count: Int64, modifiers: [Modifier], guard: InputGuard?)
    case mouseDown(MouseButton, at: Point?, guard: InputGuard?)
    case mouseUp(MouseButton, at: Point?, guard: InputGuard?)
    case drag(from: Point?, to: Point, button: MouseButton, modifiers: [Modifier], guard: InputGuard?)
    case scroll(Point, direction: ScrollDirection, amount: Int64, modifiers: [Modifier], guard: InputGuard?)
    case key(chords: [[Int64]], repeat: Int64, guard: InputGuard?)
    case keyDown(chords: [[Int64]], guard: InputGuard?)
    case keyUp(chords: [[Int64]])
    case type(String, guard: InputGuard?)
    case windowAt(Point)
    case gateFacts(points: [Point])
    case iconify(window: Int64)
    case activate(window: Int64)
    case clipboardWrite(String)
    case launch(argv: [String], env: [(String, String)], cwd: String?)
    case desktopEntries(user: Bool)

    public static func == (a: InputRequest, b: InputRequest) -> Bool { String(describing: a) == String(describing: b) }
}

public struct InputRefusal: Error, Equatable {
    public let id: JSON
    public let kind = "bad_args"
    public let message: String
}

private let coord = Int64(0)...Int64.max
private let windowRange = Int64(1)...InputLimits.maxWindowId

public enum InputRequestParser {
    /// One request line, without its newline.
    public static func parse(_ line: [UInt8]) -> Result<(id: JSON, request: InputRequest), InputRefusal> {
        if line.count > InputLimits.maxLine {
            return .failure(InputRefusal(id: recoverId(Array(line.prefix(200))), message: "request line longer than \(InputLimits.maxLine) bytes"))
        }
        guard let text = String(validating: line) else { return .failure(InputRefusal(id: .null, message: "malformed JSON: not UTF-8")) }
        let value: JSON
        do { value = try JSONParser.parse(Array(text.utf8)) } catch { return .failure(InputRefusal(id: .null, message: "malformed JSON: \(error)")) }
        guard case .object = value else { return .failure(InputRefusal(id: .null, message: "a request must be a JSON object")) }
        let id = value["id"] ?? .null
        switch id {
        case .null, .int, .string: break
        default: return .failure(InputRefusal(id: .null, message: "'id' must be an integer or a string"))
        }
        guard case let .string(op, _)? = value["op"] else { return .failure(InputRefusal(id: id, message: "'op' must be a string")) }
        do {
            return .success((id, try request(op, value)))
        } catch let error as FieldError {
            return .failure(InputRefusal(id: id, message: "\(op): \(error.message)"))
        } catch {
            return .failure(InputRefusal(id: id, message: "\(op): \(error)"))
        }
    }

    /// The id at the start of an over-long line, as the runtime recovers it (protocol.recover_id).
    static func recoverId(_ prefix: [UInt8]) -> JSON {
        var text = Substring(String(decoding: prefix, as: UTF8.self))
        func skip() { while let c = text.first, c == " " || c == "\t" || c == "\n" || c == "\r" { text = text.dropFirst() } }
        skip()
        guard text.first == "{" else { return .null }
        text = text.dropFirst(); skip()
        guard text.hasPrefix("\"id\"") else { return .null }
        text = text.dropFirst(4); skip()
        guard text.first == ":" else { return .null }
        text = text.dropFirst(); skip()
        if text.first == "\"" {
            let body = text.dropFirst().prefix { $0 != "\"" && $0 != "\\" }
            guard body.count <= 100, text.dropFirst().dropFirst(body.count).first == "\"" else { return .null }
            return .string(String(body))
        }
        let digits = text.prefix { $0 == "-" || $0.isNumber }
        guard !digits.isEmpty, digits.count <= 19, let n = Int64(digits) else { return .null }
        return .int(n)
    }

    private static func request(_ op: String, _ value: JSON) throws -> InputRequest {
        func fields(_ allowed: String...) throws -> Fields { try Fields(value, op: op, allowed: allowed) }
        switch op {
        case "ping": _ = try fields(); return .ping
        case "check": _ = try fields(); return .check
        case "cursor_position": _ = try fields(); return .cursorPosition
        case "frontmost_app": _ = try fields(); return .frontmostApp
        case "list_windows": _ = try fields(); return .listWindows
        case "release_all": _ = try fields(); return .releaseAll
        case "clipboard_read": _ = try fields(); return .clipboardRead
        case "move":
            let f = try fields("x", "y", "guard")
            return .move(try point(f), guard: try guardOf(f))
        case "click":
            let f = try fields("x", "y", "button", "count", "modifiers", "guard")
            return .click(try point(f), button: try button(f), count: try f.nullableInt("count", 1...InputLimits.maxClickCount) ?? 1, modifiers: try modifiers(f), guard: try guardOf(f))
        case "mouse_down", "mouse_up":
            let f = try fields("button", "x", "y", "guard")
            guard f.has("x") == f.has("y") else { throw FieldError(message: "give both 'x' and 'y', or neither") }
            let at = f.has("x") ? try point(f) : nil
            return op == "mouse_down" ? .mouseDown(try button(f), at: at, guard: try guardOf(f)) : .mouseUp(try button(f), at: at, guard: try guardOf(f))
        case "drag":
            let f = try fields("from", "to", "button", "modifiers", "guard")
            let from = f.has("from") ? try pair(f.raw("from")!, "from") : nil
            guard let to = f.raw("to") else { throw FieldError(message: "missing field `to`") }
            return .drag(from: from, to: try pair(to, "to"), button: try button(f), modifiers: try modifiers(f), guard: try guardOf(f))
        case "scroll":
            let f = try fields("x", "y", "direction", "amount", "modifiers", "guard")
            let direction = ScrollDirection(rawValue: try f.choice("direction", ScrollDirection.allCases.map(\.rawValue), nullable: false)!)!
            return .scroll(try point(f), direction: direction, amount: try f.nullableInt("amount", 0...InputLimits.maxScrollAmount) ?? 1, modifiers: try modifiers(f), guard: try guardOf(f))
        case "key":
            let f = try fields("chords", "repeat", "guard")
            return .key(chords: try chords(f), repeat: try f.nullableInt("repeat", 1...InputLimits.maxRepeat) ?? 1, guard: try guardOf(f))
        case "key_down":
            let f = try fields("chords", "guard")
            return .keyDown(chords: try chords(f), guard: try guardOf(f))
        case "key_up":
            // Any guard is taken and never checked: releasing keys is always safe.
            let f = try fields("chords", "guard")
            return .keyUp(chords: try chords(f))
        case "type":
            let f = try fields("text", "guard")
            guard case let .string(text, lone)? = f.raw("text") else { throw FieldError(message: "`text` must be a string") }
            if lone { throw FieldError(message: "text: lone surrogates") }
            guard text.unicodeScalars.count <= InputLimits.maxText else { throw FieldError(message: "text over \(InputLimits.maxText) characters") }
            if text.unicodeScalars.contains(where: { isRefusedControl($0.value) }) { throw FieldError(message: "text: control characters other than \\n, \\r and \\t") }
            return .type(text, guard: try guardOf(f))
        case "window_at":
            let f = try fields("x", "y")
            return .windowAt(try point(f))
        case "gate_facts":
            let f = try fields("points")
            guard let raw = f.raw("points"), !raw.isNull else { return .gateFacts(points: []) }
            guard let items = raw.arrayValue, items.count <= InputLimits.maxGatePoints else { throw FieldError(message: "`points` must be a list of at most \(InputLimits.maxGatePoints) [x, y] pairs") }
            return .gateFacts(points: try items.map { try pair($0, "points") })
        case "iconify", "activate":
            let f = try fields("window")
            let window = try f.int("window", windowRange)
            return op == "iconify" ? .iconify(window: window) : .activate(window: window)
        case "clipboard_write":
            let f = try fields("text")
            return .clipboardWrite(try f.string("text"))
        case "launch":
            return try launch(try fields("argv", "env", "cwd"))
        case "desktop_entries":
            let f = try fields("user")
            guard let raw = f.raw("user"), !raw.isNull else { return .desktopEntries(user: true) }
            guard case let .bool(user) = raw else { throw FieldError(message: "`user` must be true or false") }
            return .desktopEntries(user: user)
        default:
            throw FieldError(message: "unknown op \(serializeJSON(.string(op)))")
        }
    }

    /// C0 controls but \t \n \r, DEL and the C1 controls (keyboard.py types none of them).
    static func isRefusedControl(_ v: UInt32) -> Bool {
        (v < 0x20 && v != 0x09 && v != 0x0A && v != 0x0D) || (0x7F...0x9F).contains(v)
    }

    private static func point(_ f: Fields) throws -> Point { Point(x: try f.int("x", coord), y: try f.int("y", coord)) }

    private static func pair(_ value: JSON, _ name: String) throws -> Point {
        guard let items = value.arrayValue, items.count == 2 else { throw FieldError(message: "`\(name)` must be an [x, y] pair") }
        return Point(x: try Fields.int(items[0], name, coord), y: try Fields.int(items[1], name, coord))
    }

    private static func button(_ f: Fields) throws -> MouseButton {
        MouseButton(rawValue: try f.choice("button", MouseButton.allCases.map(\.rawValue), nullable: true) ?? "left")!
    }

    private static func modifiers(_ f: Fields) throws -> [Modifier] {
        guard let raw = f.raw("modifiers"), !raw.isNull else { return [] }
        guard let items = raw.arrayValue else { throw FieldError(message: "`modifiers` must be a list of ctrl, alt, shift, meta") }
        return try items.map { item in
            guard case let .string(s, _) = item, let m = Modifier(rawValue: s) else { throw FieldError(message: "`modifiers` must be a list of ctrl, alt, shift, meta") }
            return m
        }
    }

    private static func chords(_ f: Fields) throws -> [[Int64]] {
        guard let items = f.raw("chords")?.arrayValue, (1...InputLimits.maxChords).contains(items.count) else {
            throw FieldError(message: "`chords` must be 1-\(InputLimits.maxChords) chords")
        }
        return try items.map { chord in
            guard let keys = chord.arrayValue, (1...InputLimits.maxChordKeys).contains(keys.count) else { throw FieldError(message: "a chord has 1-\(InputLimits.maxChordKeys) keysyms") }
            return try keys.map { try Fields.int($0, "keysym", 1...InputLimits.maxKeysym) }
        }
    }

    private static func guardOf(_ f: Fields) throws -> InputGuard? {
        guard let raw = f.raw("guard"), !raw.isNull else { return nil }
        let g = try Fields(raw, op: "guard", allowed: ["focus", "at", "facts"], strictIdOp: false)
        let focus = try g.nullableInt("focus", windowRange)
        let facts = try g.nullableString("facts")
        if let facts, !(1...InputLimits.maxFactsToken).contains(facts.count) { throw FieldError(message: "guard: `facts` must be 1-\(InputLimits.maxFactsToken) characters") }
        var at: [(point: Point, kind: SurfaceKind, window: Int64?)] = []
        if let list = g.raw("at"), !list.isNull {
            guard let items = list.arrayValue, items.count <= InputLimits.maxGuardPoints else { throw FieldError(message: "guard: `at` must be at most \(InputLimits.maxGuardPoints) entries") }
            for item in items {
                guard let parts = item.arrayValue, parts.count == 4, case let .string(k, _) = parts[2], let kind = SurfaceKind(rawValue: k) else {
                    throw FieldError(message: "guard: each `at` entry is [x, y, kind, window]")
                }
                let window = parts[3].isNull ? nil : try Fields.int(parts[3], "window", windowRange)
                at.append((Point(x: try Fields.int(parts[0], "x", coord), y: try Fields.int(parts[1], "y", coord)), kind, window))
            }
        }
        guard focus != nil || !at.isEmpty else { throw FieldError(message: "a guard must have 'focus', 'at' or both") }
        return InputGuard(focus: focus, facts: facts, at: at)
    }

    private static func launch(_ f: Fields) throws -> InputRequest {
        guard let items = f.raw("argv")?.arrayValue, (1...InputLimits.maxArgs).contains(items.count) else { throw FieldError(message: "`argv` must be a list of 1-\(InputLimits.maxArgs) strings") }
        let argv: [String] = try items.map {
            guard case let .string(s, _) = $0, !s.contains("\0") else { throw FieldError(message: "`argv` must be strings without NUL bytes") }
            return s
        }
        guard !argv[0].isEmpty else { throw FieldError(message: "argv[0] must not be empty") }
        var env: [(String, String)] = []
        if let raw = f.raw("env"), !raw.isNull {
            guard case let .object(members) = raw else { throw FieldError(message: "`env` must be an object of strings") }
            for (name, value) in members {
                guard !name.isEmpty, !name.contains("="), !name.contains("\0") else { throw FieldError(message: "env: \(name) is not a variable name") }
                guard case let .string(s, _) = value, !s.contains("\0") else { throw FieldError(message: "env: \(name) must be a string without NUL bytes") }
                env.append((name, s))
            }
        }
        var cwd: String?
        if let raw = f.raw("cwd"), !raw.isNull {
            guard case let .string(s, _) = raw, !s.isEmpty, !s.contains("\0") else { throw FieldError(message: "`cwd` must be a non-empty path") }
            cwd = s
        }
        let bytes = argv.reduce(0) { $0 + $1.utf8.count + 1 } + env.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 2 } + (cwd?.utf8.count ?? 0)
        guard bytes <= InputLimits.maxLaunchBytes else { throw FieldError(message: "argv, env and cwd over \(InputLimits.maxLaunchBytes) bytes") }
        return .launch(argv: argv, env: env, cwd: cwd)
    }
}
