/// A JSON value that keeps what the protocols care about and Foundation's parser loses:
/// integers apart from numbers with a fraction or exponent (`7.5` and `10.0` are not integers,
/// as for the Rust and Python helpers), object keys in their order, and unpaired UTF-16
/// surrogates written as `\uD800` escapes (kept as a flag: Swift strings cannot hold them).
public enum JSON: Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String, loneSurrogate: Bool = false)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.double(x), .double(y)): return x == y
        case let (.int(x), .double(y)), let (.double(y), .int(x)): return Double(x) == y
        case let (.string(x, _), .string(y, _)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            // Equal as JSON values: the same members, whatever their order.
            guard x.count == y.count else { return false }
            return x.allSatisfy { key, value in y.first(where: { $0.0 == key })?.1 == value }
        default: return false
        }
    }

    public subscript(key: String) -> JSON? {
        if case let .object(members) = self { return members.last(where: { $0.0 == key })?.1 }
        return nil
    }

    public var keys: [String] {
        if case let .object(members) = self { return members.map(\.0) }
        return []
    }

    public var stringValue: String? {
        if case let .string(s, _) = self { return s }
        return nil
    }

    public var intValue: Int64? {
        if case let .int(n) = self { return n }
        return nil
    }

    public var arrayValue: [JSON]? {
        if case let .array(items) = self { return items }
        return nil
    }

    public var isNull: Bool { self == .null }
}

public struct JSONParseError: Error, CustomStringConvertible {
    public let description: String
}

/// A strict RFC 8259 parser over UTF-8 bytes (nesting at most 128 deep).
public struct JSONParser {
    private let bytes: [UInt8]
    private var at = 0
    private var depth = 0

    public static func parse(_ bytes: [UInt8]) throws -> JSON {
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value()
        parser.skipSpace()
        if parser.at != bytes.count { throw parser.fail("trailing characters") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func fail(_ what: String) -> JSONParseError {
        JSONParseError(description: "\(what) at byte \(at)")
    }

    private mutating func skipSpace() {
        while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
    }

    private mutating func literal(_ word: String, _ value: JSON) throws -> JSON {
        let w = Array(word.utf8)
        guard at + w.count <= bytes.count, Array(bytes[at..<at + w.count]) == w else { throw fail("expected value") }
        at += w.count
        return value
    }

    private mutating func value() throws -> JSON {
        guard at < bytes.count else { throw fail("expected value") }
        switch bytes[at] {
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("expected value")
        }
    }

    private mutating func nested<T>(_ body: (inout JSONParser) throws -> T) throws -> T {
        depth += 1
        if depth > 128 { throw fail("nesting too deep") }
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func array() throws -> JSON {
        try nested { p in
            p.at += 1
            var items: [JSON] = []
            p.skipSpace()
            if p.at < p.bytes.count, p.bytes[p.at] == UInt8(ascii: "]") { p.at += 1; return .array(items) }
            while true {
                p.skipSpace()
                items.append(try p.value())
                p.skipSpace()
                guard p.at < p.bytes.count else { throw p.fail("unterminated array") }
                if p.bytes[p.at] == UInt8(ascii: ",") { p.at += 1; continue }
                if p.bytes[p.at] == UInt8(ascii: "]") { p.at += 1; return .array(items) }
                throw p.fail("expected , or ]")
            }
        }
    }

    private mutating func object() throws -> JSON {
        try nested { p in
            p.at += 1
            var members: [(String, JSON)] = []
            p.skipSpace()
            if p.at < p.bytes.count, p.bytes[p.at] == UInt8(ascii: "}") { p.at += 1; return .object(members) }
            while true {
                p.skipSpace()
                guard p.at < p.bytes.count, p.bytes[p.at] == UInt8(ascii: "\"") else { throw p.fail("expected a member name") }
                guard case let .string(key, _) = try p.string() else { throw p.fail("expected a member name") }
                p.skipSpace()
                guard p.at < p.bytes.count, p.bytes[p.at] == UInt8(ascii: ":") else { throw p.fail("expected :") }
                p.at += 1
                p.skipSpace()
                members.append((key, try p.value()))
                p.skipSpace()
                guard p.at < p.bytes.count else { throw p.fail("unterminated object") }
                if p.bytes[p.at] == UInt8(ascii: ",") { p.at += 1; continue }
                if p.bytes[p.at] == UInt8(ascii: "}") { p.at += 1; return .object(members) }
                throw p.fail("expected , or }")
            }
        }
    }

    private mutating func number() throws -> JSON {
        let start = at
        var integral = true
        if bytes[at] == UInt8(ascii: "-") { at += 1 }
        guard at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) else { throw fail("bad number") }
        if bytes[at] == UInt8(ascii: "0") { at += 1 } else { while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 } }
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            integral = false
            at += 1
            let digits = at
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
            if at == digits { throw fail("bad number") }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            integral = false
            at += 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            let digits = at
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
            if at == digits { throw fail("bad number") }
        }
        let text = String(decoding: bytes[start..<at], as: UTF8.self)
        if integral, let n = Int64(text) { return .int(n) }
        guard let d = Double(text) else { throw fail("bad number") }
        // An integer too large for 64 bits stays a number, never an integer (out of every range).
        return .double(d)
    }

    private mutating func hex4() throws -> UInt32 {
        guard at + 4 <= bytes.count, let n = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16) else { throw fail("bad \\u escape") }
        at += 4
        return n
    }

    private mutating func string() throws -> JSON {
        at += 1
        var out = [UInt8]()
        var lone = false
        while true {
            guard at < bytes.count else { throw fail("unterminated string") }
            let b = bytes[at]
            if b == UInt8(ascii: "\"") { at += 1; break }
            if b < 0x20 { throw fail("control character in string") }
            if b != UInt8(ascii: "\\") { out.append(b); at += 1; continue }
            at += 1
            guard at < bytes.count else { throw fail("unterminated string") }
            let e = bytes[at]
            at += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar), at + 6 <= bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") {
                    let save = at
                    at += 2
                    let low = try hex4()
                    if (0xDC00...0xDFFF).contains(low) { scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00) } else { at = save }
                }
                if (0xD800...0xDFFF).contains(scalar) { lone = true; scalar = 0xFFFD }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default: throw fail("bad escape")
            }
        }
        guard let text = String(validating: out) else { throw fail("invalid UTF-8 in string") }
        return .string(text, loneSurrogate: lone)
    }
}

extension String {
    /// The bytes as UTF-8 text, or nil when they are not valid UTF-8.
    init?(validating bytes: [UInt8]) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        loop: while true {
            switch decoder.decode(&iterator) {
            case let .scalarValue(s): scalars.append(s)
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        self = String(scalars)
    }
}

/// Compact JSON, members in their order (as serde_json and `json.dumps(separators=(",", ":"))`
/// write it). `asciiOnly` escapes every non-ASCII character as Python's default does.
public func serializeJSON(_ value: JSON, asciiOnly: Bool = false) -> String {
    var out = ""
    write(value, into: &out, asciiOnly: asciiOnly)
    return out
}

private func write(_ value: JSON, into out: inout String, asciiOnly: Bool) {
    switch value {
    case .null: out += "null"
    case let .bool(b): out += b ? "true" : "false"
    case let .int(n): out += String(n)
    case let .double(d):
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 { out += String(Int64(d)) + ".0" } else { out += d.isFinite ? "\(d)" : "null" }
    case let .string(s, _): writeString(s, into: &out, asciiOnly: asciiOnly)
    case let .array(items):
        out += "["
        for (i, item) in items.enumerated() {
            if i > 0 { out += "," }
            write(item, into: &out, asciiOnly: asciiOnly)
        }
        out += "]"
    case let .object(members):
        out += "{"
        for (i, (key, item)) in members.enumerated() {
            if i > 0 { out += "," }
            writeString(key, into: &out, asciiOnly: asciiOnly)
            out += ":"
            write(item, into: &out, asciiOnly: asciiOnly)
        }
        out += "}"
    }
}

private func hex4(_ n: UInt32) -> String {
    let h = String(n, radix: 16)
    return String(repeating: "0", count: 4 - h.count) + h
}

private func writeString(_ s: String, into out: inout String, asciiOnly: Bool) {
    out += "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\u{08}": out += "\\b"
        case "\u{0C}": out += "\\f"
        default:
            if scalar.value < 0x20 {
                out += "\\u" + hex4(scalar.value)
            } else if asciiOnly, scalar.value > 0x7E {
                if scalar.value >= 0x10000 {
                    let v = scalar.value - 0x10000
                    out += "\\u" + hex4(0xD800 + (v >> 10)) + "\\u" + hex4(0xDC00 + (v & 0x3FF))
                } else {
                    out += "\\u" + hex4(scalar.value)
                }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    out += "\""
}
