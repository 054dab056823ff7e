/// Field checks shared by both protocols' request parsers: strict objects (an unknown field is
/// refused, so a typo never silently changes behaviour), integers in ranges, optional and
/// nullable fields exactly as the zod schemas of packages/helper-protocol read them.
struct FieldError: Error {
    let message: String
}

struct Fields {
    let object: [(String, JSON)]
    let op: String

    /// `strictIdOp`: the object is a request, so `id` and `op` are known fields too; a nested object (a rectangle, a guard) has only its own.
    init(_ value: JSON, op: String, allowed: [String], strictIdOp: Bool = true) throws {
        guard case let .object(members) = value else { throw FieldError(message: strictIdOp ? "a request must be a JSON object" : "`\(op)` must be an object") }
        let known = Set((strictIdOp ? ["id", "op"] : []) + allowed)
        if let unknown = members.first(where: { !known.contains($0.0) }) {
            throw FieldError(message: "unknown field `\(unknown.0)`, expected one of \(allowed.map { "`\($0)`" }.joined(separator: ", "))")
        }
        object = members
        self.op = op
    }

    func raw(_ name: String) -> JSON? { object.last(where: { $0.0 == name })?.1 }

    /// Present and not null.
    func has(_ name: String) -> Bool { if let v = raw(name) { return !v.isNull }; return false }

    func int(_ name: String, _ range: ClosedRange<Int64>) throws -> Int64 {
        guard let value = raw(name) else { throw FieldError(message: "missing field `\(name)`") }
        return try Fields.int(value, name, range)
    }

    /// Absent or null → nil.
    func nullableInt(_ name: String, _ range: ClosedRange<Int64>) throws -> Int64? {
        guard let value = raw(name), !value.isNull else { return nil }
        return try Fields.int(value, name, range)
    }

    /// Absent → nil; null is refused (a field that is optional but not nullable).
    func optionalInt(_ name: String, _ range: ClosedRange<Int64>) throws -> Int64? {
        guard let value = raw(name) else { return nil }
        return try Fields.int(value, name, range)
    }

    static func int(_ value: JSON, _ name: String, _ range: ClosedRange<Int64>) throws -> Int64 {
        guard case let .int(n) = value else { throw FieldError(message: "`\(name)` must be an integer") }
        guard range.contains(n) else { throw FieldError(message: "`\(name)` \(n) is out of range \(range.lowerBound)-\(range.upperBound)") }
        return n
    }

    func string(_ name: String) throws -> String {
        guard let value = raw(name) else { throw FieldError(message: "missing field `\(name)`") }
        guard case let .string(s, _) = value else { throw FieldError(message: "`\(name)` must be a string") }
        return s
    }

    func nullableString(_ name: String) throws -> String? {
        guard let value = raw(name), !value.isNull else { return nil }
        guard case let .string(s, _) = value else { throw FieldError(message: "`\(name)` must be a string") }
        return s
    }

    func choice(_ name: String, _ options: [String], nullable: Bool) throws -> String? {
        guard let value = raw(name), !(nullable && value.isNull) else {
            if nullable { return nil }
            throw FieldError(message: "missing field `\(name)`")
        }
        guard case let .string(s, _) = value, options.contains(s) else {
            throw FieldError(message: "`\(name)` must be one of \(options.joined(separator: ", "))")
        }
        return s
    }
}
