/// A small JSON tree for the other tools' formats (SNS, gorush, arrays), where records are
/// nested and speed matters less than for the canonical scanner.
indirect enum JSONValue {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    subscript(key: String) -> JSONValue? {
        guard case .object(let kv) = self else { return nil }
        let k = key.lowercased()
        return kv.first { $0.0.lowercased() == k }?.1
    }

    /// The first of `keys` present (case-insensitive, `-` and `_` ignored), with an Avro union
    /// wrapper (`{"string": "ios"}`, `{"long": 1}`) removed.
    func first(_ keys: String...) -> JSONValue? {
        guard case .object(let kv) = self else { return nil }
        func fold(_ s: String) -> String { String(s.lowercased().filter { $0 != "_" && $0 != "-" }) }
        for k in keys {
            let f = fold(k)
            if let v = kv.first(where: { fold($0.0) == f })?.1 { return v.unwrapped }
        }
        return nil
    }

    /// The value inside an Avro union wrapper, or the value itself.
    var unwrapped: JSONValue {
        if case .object(let kv) = self, kv.count == 1,
            ["string", "long", "int", "double", "float", "boolean"].contains(kv[0].0)
        {
            return kv[0].1
        }
        return self
    }

    var string: String? {
        switch self {
        case .string(let s): return s
        case .number(let n): return n
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }

    /// Parses one JSON value filling the whole input (whitespace around allowed).
    static func parse(_ b: ByteSlice) -> JSONValue? {
        var p = Parser(b: b, i: 0, relaxed: false)
        guard let v = p.value(depth: 0) else { return nil }
        p.ws()
        return p.i == b.count ? v : nil
    }

    static func parse(_ s: String) -> JSONValue? {
        var s = s
        return s.withUTF8 { parse($0) }
    }

    /// Parses a JavaScript value as Node's `console.log` (util.inspect) prints it: single-quoted
    /// strings, unquoted keys, class names before objects (`Device {`), `undefined`, what it
    /// elides past its depth (`[Object]`, `[Array]`: null) and Buffers (`<Buffer 3f 2a>`: the hex).
    static func parseInspected(_ b: ByteSlice) -> JSONValue? {
        var p = Parser(b: b, i: 0, relaxed: true)
        guard let v = p.value(depth: 0) else { return nil }
        p.ws()
        return p.i == b.count ? v : nil
    }

    struct Parser {
        let b: ByteSlice
        var i: Int
        /// JavaScript as util.inspect prints it (`parseInspected`), not JSON.
        let relaxed: Bool

        func isIdentifier(_ c: UInt8) -> Bool {
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x24
        }

        /// An unquoted key or word (`device`, `undefined`, `Device`).
        mutating func identifier() -> String? {
            let s = i
            while i < b.count, isIdentifier(b[i]) { i += 1 }
            return i > s ? String(decoding: b[s..<i], as: UTF8.self) : nil
        }

        /// After a comma: true when the container closes next (util.inspect never writes a
        /// trailing comma, but a hand-tidied paste may), or skips "... 3 more items".
        mutating func closesAfterComma(_ close: UInt8) -> Bool {
            ws()
            if i + 3 <= b.count && b[i] == 0x2E && b[i + 1] == 0x2E && b[i + 2] == 0x2E {
                while i < b.count && b[i] != close && b[i] != 0x2C { i += 1 }
                if i < b.count && b[i] == 0x2C { i += 1 }
                ws()
            }
            return i < b.count && b[i] == close
        }

        /// An Error as util.inspect prints it: `Error: MESSAGE`, its stack (`    at …` lines), then
        /// its own properties in braces (`{ errno: -104, code: 'ECONNRESET' }`); read as an
        /// object with `message` and those properties.
        mutating func inspectedError(_ name: String, depth: Int) -> JSONValue? {
            i += 1
            let s = i
            while i < b.count && b[i] != 0x0A && !(b[i] == 0x7B && b[i - 1] == 0x20) { i += 1 }
            var props: [(String, JSONValue)] = [
                ("message", .string(name + ": " + String(decoding: b[s..<i], as: UTF8.self).trimmed()))
            ]
            while true {
                ws()
                guard i + 3 <= b.count, b[i] == 0x61, b[i + 1] == 0x74, b[i + 2] == 0x20 else { break }
                while i < b.count && b[i] != 0x0A && !(b[i] == 0x7B && b[i - 1] == 0x20) { i += 1 }
            }
            if i < b.count && b[i] == 0x7B, case .object(let kv)? = value(depth: depth + 1) { props += kv }
            return .object(props)
        }

        /// What util.inspect writes in brackets or angle brackets instead of a value.
        mutating func inspectedPlaceholder() -> JSONValue?? {
            if b[i] == 0x5B, i + 1 < b.count, b[i + 1] >= 0x41 && b[i + 1] <= 0x5A {
                // [Object], [Array], [Function: f], [Circular *1], [Getter]
                while i < b.count && b[i] != 0x5D { i += 1 }
                guard i < b.count else { return .some(nil) }
                i += 1
                return .some(.null)
            }
            if b[i] == 0x3C {
                let s = i
                while i < b.count && b[i] != 0x3E { i += 1 }
                guard i < b.count else { return .some(nil) }
                i += 1
                let inner = String(decoding: b[(s + 1)..<(i - 1)], as: UTF8.self)
                if inner.hasPrefix("Buffer ") {
                    return .some(.string(inner.dropFirst(7).split(separator: " ").joined()))
                }
                return .none  // <ref *1> before a value
            }
            return .none
        }

        mutating func ws() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        }

        mutating func value(depth: Int) -> JSONValue? {
            guard depth < 64 else { return nil }
            ws()
            guard i < b.count else { return nil }
            switch b[i] {
            case 0x7B:
                i += 1
                var kv: [(String, JSONValue)] = []
                ws()
                if i < b.count && b[i] == 0x7D { i += 1; return .object(kv) }
                while true {
                    ws()
                    guard let k = str() ?? (relaxed ? identifier() : nil) else { return nil }
                    ws()
                    guard i < b.count, b[i] == 0x3A else { return nil }
                    i += 1
                    guard let v = value(depth: depth + 1) else { return nil }
                    kv.append((k, v))
                    ws()
                    guard i < b.count else { return nil }
                    if b[i] == 0x2C {
                        i += 1
                        if relaxed && closesAfterComma(0x7D) { i += 1; return .object(kv) }
                        continue
                    }
                    if b[i] == 0x7D { i += 1; return .object(kv) }
                    return nil
                }
            case 0x5B where relaxed, 0x3C where relaxed:
                let opening = b[i]
                if let placeholder = inspectedPlaceholder() { return placeholder }
                if opening == 0x3C { return value(depth: depth + 1) }
                fallthrough
            case 0x5B:
                i += 1
                var a: [JSONValue] = []
                ws()
                if i < b.count && b[i] == 0x5D { i += 1; return .array(a) }
                while true {
                    guard let v = value(depth: depth + 1) else { return nil }
                    a.append(v)
                    ws()
                    guard i < b.count else { return nil }
                    if b[i] == 0x2C {
                        i += 1
                        if relaxed && closesAfterComma(0x5D) { i += 1; return .array(a) }
                        continue
                    }
                    if b[i] == 0x5D { i += 1; return .array(a) }
                    return nil
                }
            case 0x22:
                return str().map { .string($0) }
            case 0x27 where relaxed:
                return str().map { .string($0) }
            case let c where relaxed && isIdentifier(c) && !(c >= 0x30 && c <= 0x39):
                guard let word = identifier() else { return nil }
                switch word {
                case "true": return .bool(true)
                case "false": return .bool(false)
                case "null", "undefined": return .null
                case _ where word.hasSuffix("Error") && i < b.count && b[i] == 0x3A:
                    return inspectedError(word, depth: depth)
                default:
                    // A class name before its object or array (`Device {`, `Map(1) {`).
                    while i < b.count && b[i] != 0x7B && b[i] != 0x5B
                        && (b[i] == 0x20 || b[i] == 0x28 || b[i] == 0x29 || (b[i] >= 0x30 && b[i] <= 0x39))
                    {
                        i += 1
                    }
                    guard i < b.count, b[i] == 0x7B || b[i] == 0x5B else { return nil }
                    return value(depth: depth + 1)
                }
            default:
                let s = i
                while i < b.count,
                    !(b[i] == 0x2C || b[i] == 0x7D || b[i] == 0x5D || b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09)
                { i += 1 }
                let t = String(decoding: b[s..<i], as: UTF8.self)
                switch t {
                case "true": return .bool(true)
                case "false": return .bool(false)
                case "null": return .null
                default:
                    guard let f = t.first, f == "-" || f.isNumber else { return nil }
                    return .number(t)
                }
            }
        }

        mutating func str() -> String? {
            guard i < b.count, b[i] == 0x22 || (relaxed && b[i] == 0x27) else { return nil }
            let quote = b[i]
            i += 1
            var out: [UInt8] = []
            while i < b.count {
                let c = b[i]
                if c == quote { i += 1; return String(decoding: out, as: UTF8.self) }
                if c == 0x5C, i + 1 < b.count {
                    let e = b[i + 1]
                    i += 2
                    switch e {
                    case 0x6E: out.append(0x0A)
                    case 0x74: out.append(0x09)
                    case 0x72: out.append(0x0D)
                    case 0x62: out.append(0x08)
                    case 0x66: out.append(0x0C)
                    case 0x75:
                        guard i + 4 <= b.count, let u = UInt32(String(decoding: b[i..<(i + 4)], as: UTF8.self), radix: 16) else {
                            return nil
                        }
                        i += 4
                        var code = u
                        if u >= 0xD800 && u < 0xDC00, i + 6 <= b.count, b[i] == 0x5C, b[i + 1] == 0x75,
                            let lo = UInt32(String(decoding: b[(i + 2)..<(i + 6)], as: UTF8.self), radix: 16),
                            lo >= 0xDC00 && lo < 0xE000
                        {
                            code = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                            i += 6
                        }
                        out.append(contentsOf: Array(String(UnicodeScalar(code).map(Character.init) ?? "\u{FFFD}").utf8))
                    default: out.append(e)
                    }
                    continue
                }
                out.append(c)
                i += 1
            }
            return nil
        }
    }
}
