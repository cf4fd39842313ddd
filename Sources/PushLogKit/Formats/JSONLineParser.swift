import Foundation

/// A byte-level scanner for one JSON object per line, feeding an `EventBuilder` without
/// allocating: keys are hashed in place, values are slices of the line (or of the arena when
/// they hold escapes). Nested `response`/`body` objects supply status/reason/timestamp, and a
/// `payload` object gives only its shape.
struct JSONLineParser {
    enum Context { case top, nested, payload, aps }
    struct Failure: Error { let reason: RejectReason }

    let builder: EventBuilder
    init(builder: EventBuilder) { self.builder = builder }

    /// Scans one object into the builder without resetting or finishing it.
    func scan(_ line: ByteSlice) -> RejectReason? {
        guard let p = line.baseAddress else { return .emptyLine }
        let n = line.count
        var i = 0
        skipWS(p, n, &i)
        guard i < n, p[i] == 0x7B else { return .notJSONObject }
        do {
            try object(p, n, &i, .top)
            skipWS(p, n, &i)
            if i != n { return .trailingCharacters(column: i + 1) }
        } catch let f as Failure {
            return f.reason
        } catch {
            return .unreadableShape("\(error)")  // only Failure is thrown
        }
        return nil
    }

    // MARK: scanning

    @inline(__always) func skipWS(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) {
        while i < n {
            let c = p[i]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { i += 1 } else { break }
        }
    }

    /// Scans a string at `i` (on the opening quote); returns its content, unescaped when needed.
    @inline(__always) func string(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) throws -> ByteSlice {
        let start = i + 1
        guard let q = memchr(p + start, 0x22, n - start) else { throw Failure(reason: .unterminatedString(column: i + 1)) }
        let qi = UnsafePointer(q.assumingMemoryBound(to: UInt8.self)) - p
        if memchr(p + start, 0x5C, qi - start) == nil {
            i = qi + 1
            return ByteSlice(start: p + start, count: qi - start)
        }
        return try unescape(p, n, &i)
    }

    func unescape(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) throws -> ByteSlice {
        var j = i + 1
        guard let out = builder.allocate(n - j) else { throw Failure(reason: .tooLargeToUnescape) }
        var o = 0
        while j < n {
            let c = p[j]
            if c == 0x22 {
                i = j + 1
                return ByteSlice(start: out, count: o)
            }
            if c != 0x5C { out[o] = c; o += 1; j += 1; continue }
            guard j + 1 < n else { break }
            let e = p[j + 1]
            j += 2
            switch e {
            case 0x22, 0x5C, 0x2F: out[o] = e; o += 1
            case 0x62: out[o] = 0x08; o += 1
            case 0x66: out[o] = 0x0C; o += 1
            case 0x6E: out[o] = 0x0A; o += 1
            case 0x72: out[o] = 0x0D; o += 1
            case 0x74: out[o] = 0x09; o += 1
            case 0x75:
                guard var u = hex4(p, n, j) else { throw Failure(reason: .badUnicodeEscape(column: j)) }
                j += 4
                if u >= 0xD800 && u < 0xDC00, j + 6 <= n, p[j] == 0x5C, p[j + 1] == 0x75,
                    let lo = hex4(p, n, j + 2), lo >= 0xDC00 && lo < 0xE000
                {
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                    j += 6
                } else if u >= 0xD800 && u < 0xE000 {
                    u = 0xFFFD
                }
                o += encodeUTF8(u, out + o)
            default:
                throw Failure(reason: .badEscape(Character(UnicodeScalar(e)), column: j - 1))
            }
        }
        throw Failure(reason: .unterminatedString(column: nil))
    }

    @inline(__always) func hex4(_ p: UnsafePointer<UInt8>, _ n: Int, _ j: Int) -> UInt32? {
        guard j + 4 <= n else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = p[j + k]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x37)
            case 0x61...0x66: d = UInt32(c - 0x57)
            default: return nil
            }
            v = v << 4 | d
        }
        return v
    }

    func encodeUTF8(_ u: UInt32, _ o: UnsafeMutablePointer<UInt8>) -> Int {
        if u < 0x80 { o[0] = UInt8(u); return 1 }
        if u < 0x800 { o[0] = UInt8(0xC0 | u >> 6); o[1] = UInt8(0x80 | u & 0x3F); return 2 }
        if u < 0x10000 {
            o[0] = UInt8(0xE0 | u >> 12); o[1] = UInt8(0x80 | (u >> 6) & 0x3F); o[2] = UInt8(0x80 | u & 0x3F); return 3
        }
        o[0] = UInt8(0xF0 | u >> 18); o[1] = UInt8(0x80 | (u >> 12) & 0x3F)
        o[2] = UInt8(0x80 | (u >> 6) & 0x3F); o[3] = UInt8(0x80 | u & 0x3F)
        return 4
    }

    /// Skips any value without recursion (deep nesting cannot overflow the stack).
    func skipValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) throws {
        var depth = 0
        repeat {
            skipWS(p, n, &i)
            guard i < n else { throw Failure(reason: .unexpectedEndOfLine) }
            let c = p[i]
            switch c {
            case 0x22: _ = try string(p, n, &i)
            case 0x7B, 0x5B:
                depth += 1; i += 1
                if depth > 10_000 { throw Failure(reason: .nestedTooDeeply) }
            case 0x7D, 0x5D: depth -= 1; i += 1
            case 0x2C, 0x3A: i += 1
            default:
                let s = i
                while i < n {
                    let d = p[i]
                    if d == 0x2C || d == 0x7D || d == 0x5D || d == 0x20 || d == 0x09 || d == 0x3A { break }
                    i += 1
                }
                if i == s { throw Failure(reason: .unexpectedCharacter(column: i + 1)) }
            }
        } while depth > 0
    }

    /// Scans a number or literal; returns its bytes and type.
    @inline(__always) func scalar(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) throws -> (ByteSlice, ValueType) {
        let s = i
        while i < n {
            let d = p[i]
            if d == 0x2C || d == 0x7D || d == 0x5D || d == 0x20 || d == 0x09 { break }
            i += 1
        }
        let v = ByteSlice(start: p + s, count: i - s)
        switch p[s] {
        case 0x74: if v.count == 4 && v.equalsASCII("true") { return (v, .bool) }
        case 0x66: if v.count == 5 && v.equalsASCII("false") { return (v, .bool) }
        case 0x6E: if v.count == 4 && v.equalsASCII("null") { return (v, .null) }
        case 0x2D, 0x30...0x39: return (v, .number)
        default: break
        }
        throw Failure(reason: .badJSONValue(column: s + 1))
    }

    func object(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int, _ ctx: Context) throws {
        i += 1
        skipWS(p, n, &i)
        if i < n && p[i] == 0x7D { i += 1; return }
        let b = builder
        while true {
            skipWS(p, n, &i)
            guard i < n, p[i] == 0x22 else { throw Failure(reason: .expectedKey(column: i + 1)) }
            let key = try string(p, n, &i)
            skipWS(p, n, &i)
            guard i < n, p[i] == 0x3A else { throw Failure(reason: .expectedColon(column: i + 1)) }
            i += 1
            skipWS(p, n, &i)
            guard i < n else { throw Failure(reason: .unexpectedEndOfLine) }
            let field = key.count > 0 ? b.keys.field(key.baseAddress!, key.count) : nil
            let c = p[i]
            switch ctx {
            case .top, .nested:
                if c == 0x22 {
                    let v = try string(p, n, &i)
                    if let field {
                        switch field {
                        // Nested objects are read one level deep only, so hostile nesting cannot recurse.
                        case .response, .body:
                            if v.first == 0x7B && ctx == .top { try sub(v, .nested) }
                        case .payload:
                            if v.first == 0x7B && ctx == .top { try sub(v, .payload) }
                            if b.event.payloadBytes == nil { b.event.payloadBytes = Int64(v.count) }
                        default:
                            b.assign(field, v, .string, nested: ctx == .nested)
                        }
                    }
                } else if c == 0x7B {
                    let start = i
                    if (field == .response || field == .body) && ctx == .top {
                        try object(p, n, &i, .nested)
                    } else if field == .payload && ctx == .top {
                        try object(p, n, &i, .payload)
                        if b.event.payloadBytes == nil { b.event.payloadBytes = Int64(i - start) }
                    } else {
                        try skipValue(p, n, &i)
                        if field == .alert { b.event.hasAlert = true }
                    }
                } else if c == 0x5B {
                    try skipValue(p, n, &i)
                } else {
                    let (v, t) = try scalar(p, n, &i)
                    if let field { b.assign(field, v, t, nested: ctx == .nested) }
                }
            case .payload:
                if c == 0x7B && field == .aps {
                    try object(p, n, &i, .aps)
                    // An aps object without alert, sound or badge says "none" (0), not "not logged"
                    // (NULL): the hygiene rules tell the two apart.
                    if b.event.hasAlert == nil { b.event.hasAlert = false }
                    if b.event.hasSound == nil { b.event.hasSound = false }
                    if b.event.hasBadge == nil { b.event.hasBadge = false }
                } else {
                    if field != .aps, let kp = key.baseAddress { b.addCustomKey(kp, key.count) }
                    try skipValue(p, n, &i)
                }
            case .aps:
                if c == 0x7B || c == 0x5B {
                    try skipValue(p, n, &i)
                    if field == .alert { b.event.hasAlert = true }
                    if field == .sound { b.event.hasSound = true }
                } else {
                    let (v, t): (ByteSlice, ValueType) = c == 0x22 ? (try string(p, n, &i), .string) : try scalar(p, n, &i)
                    switch field {
                    case .alert?, .sound?, .badge?, .contentAvailable?, .mutableContent?, .category?,
                        .threadID?, .interruptionLevel?, .relevanceScore?:
                        b.assign(field!, v, t)
                    default: break
                    }
                }
            }
            skipWS(p, n, &i)
            guard i < n else { throw Failure(reason: .unexpectedEndInsideObject) }
            if p[i] == 0x2C { i += 1; continue }
            if p[i] == 0x7D { i += 1; return }
            throw Failure(reason: .expectedCommaOrBrace(column: i + 1))
        }
    }

    /// Scans a JSON object held in a string value.
    func sub(_ v: ByteSlice, _ ctx: Context) throws {
        guard let p = v.baseAddress else { return }
        var j = 0
        try object(p, v.count, &j, ctx)
    }
}
