/// Both protocols' byte streams. Capture: a request is a u32 LE length and that many bytes of
/// JSON (a length over 65536 is skipped whole and answered `bad_request`, id null); a response
/// is a u32 LE header length, the JSON header, a u32 LE payload length, the payload. Input: one
/// JSON object per line each way; a line over 1 MiB is answered `bad_args` with the id read off
/// its start.
public enum CaptureFrame: Equatable {
    case body([UInt8])
    case tooLarge(length: Int)
}

/// Request frames as the helper reads them, from bytes that arrive in any pieces.
public struct CaptureRequestDecoder {
    private var buffer: [UInt8] = []
    private var length: Int?
    private var skipping = 0

    public init() {}

    public mutating func push(_ chunk: [UInt8]) -> [CaptureFrame] {
        buffer.append(contentsOf: chunk)
        var out: [CaptureFrame] = []
        while true {
            if skipping > 0 {
                let dropped = min(skipping, buffer.count)
                buffer.removeFirst(dropped)
                skipping -= dropped
                if skipping > 0 { return out }
                out.append(.tooLarge(length: length!))
                length = nil
            }
            if length == nil {
                guard buffer.count >= 4 else { return out }
                let n = Int(UInt32(buffer[0]) | UInt32(buffer[1]) << 8 | UInt32(buffer[2]) << 16 | UInt32(buffer[3]) << 24)
                buffer.removeFirst(4)
                length = n
                if n > CaptureLimits.maxRequestBytes { skipping = n; continue }
            }
            guard let n = length, buffer.count >= n else { return out }
            out.append(.body(Array(buffer.prefix(n))))
            buffer.removeFirst(n)
            length = nil
        }
    }
}

public func u32le(_ n: Int) -> [UInt8] {
    let v = UInt32(n)
    return [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]
}

/// One capture response frame: the header's JSON, then the payload (empty for errors).
public func encodeCaptureResponse(_ header: JSON, payload: [UInt8] = []) -> [UInt8] {
    let h = Array(serializeJSON(header).utf8)
    return u32le(h.count) + h + u32le(payload.count) + payload
}

public func captureErrorHeader(id: JSON, kind: String, message: String) -> JSON {
    .object([("id", id), ("ok", .bool(false)), ("error", .object([("kind", .string(kind)), ("message", .string(message))]))])
}

/// Lines as the runtime reads them: complete lines (without the newline), or an over-long one
/// (its first 200 bytes kept, the rest skipped up to its newline).
public enum InputLine: Equatable {
    case line([UInt8])
    case tooLong(prefix: [UInt8])
}

public struct InputLineReader {
    private var buffer: [UInt8] = []
    private var discarding: [UInt8]?

    public init() {}

    public mutating func push(_ chunk: [UInt8]) -> [InputLine] {
        var out: [InputLine] = []
        for byte in chunk {
            if var prefix = discarding {
                if byte == 0x0A { out.append(.tooLong(prefix: prefix)); discarding = nil } else if prefix.count < 200 { prefix.append(byte); discarding = prefix }
                continue
            }
            if byte == 0x0A {
                out.append(.line(buffer))
                buffer.removeAll(keepingCapacity: true)
            } else {
                buffer.append(byte)
                if buffer.count > InputLimits.maxLine { discarding = Array(buffer.prefix(200)); buffer.removeAll() }
            }
        }
        return out
    }
}

/// One input response line, newline included.
public func encodeInputResponse(id: JSON, result: JSON) -> [UInt8] {
    Array((serializeJSON(.object([("id", id), ("ok", .bool(true)), ("result", result)])) + "\n").utf8)
}

public func encodeInputError(id: JSON, kind: String, message: String, extra: [(String, JSON)] = []) -> [UInt8] {
    let error = JSON.object([("kind", .string(kind)), ("message", .string(message))] + extra)
    return Array((serializeJSON(.object([("id", id), ("ok", .bool(false)), ("error", error)])) + "\n").utf8)
}
