/// The timeline of one token (or unambiguous prefix, or masked form), device, user or apns-id
/// across every record kind, with the source file and line of each record. What a key names is
/// worked out here, on either engine, from the `trace` statements (SQLiteCommandQueries,
/// Queries/clickhouse/trace.sql), which take and give names, never an engine's ids.
public struct Trace {
    let engine: CommandEngine
    public init(engine: CommandEngine) { self.engine = engine }

    /// What a key names: a token, a device, a user, an apns-id (each by its text).
    enum Subject {
        case token(String)
        case device(String)
        case user(String)
        case apnsID(String)
    }

    func exists(_ statement: String, _ key: String) throws -> Bool { try engine.count("trace", statement, ["key": .text(key)]) > 0 }

    /// Works out what KEY names, checked in this order: an apns-id, a device, a user, a token (its
    /// prefix or masked form), an apns-id prefix. Throws with a clear message when it is
    /// ambiguous or unknown.
    func resolve(_ key: String) throws -> (Subject, String) {
        let k = key.trimmingCharacters(in: .whitespaces)
        if try exists("apns_id", Trace.apnsKey(k)) { return (.apnsID(Trace.apnsKey(k)), "apns-id \(k)") }
        if try exists("device", k) { return (.device(k), "device \(k)") }
        if try exists("user", k) { return (.user(k), "user \(k)") }
        let (prefix, suffix) = Trace.tokenKey(k)
        let found = try engine.strings("trace", "tokens", ["prefix": .text(prefix), "suffix": .text(suffix)])
        if found.isEmpty && k.count >= 4 {
            // An apns-id prefix (the first block of a UUID is what people copy from a log line).
            let (lo, hi) = Trace.keyRange(hexPrefix: k)
            let ids = try engine.strings(
                "trace", "apns_prefix",
                [
                    "key": .text(k), "hex": .text(Trace.hexPrefix(k)), "lo": lo.map { .text(Trace.uuidText($0)) } ?? .null,
                    "hi": hi.flatMap { $0.count > 16 ? nil : SQLValue.text(Trace.uuidText($0)) } ?? .null,
                ])
            if ids.count == 1 { return (.apnsID(ids[0]), "apns-id \(ids[0])") }
            if ids.count > 1 { throw TraceError.severalApnsIDs(key, ids) }
        }
        guard !found.isEmpty else { throw TraceError.nothing(key) }
        guard found.count == 1 else { throw TraceError.severalTokens(key, found) }
        return (.token(found[0]), "token \(found[0])")
    }

    /// The apns-id as stored: a UUID in lower case (pushlog reads any case as the same id), any
    /// other id as given.
    static func apnsKey(_ k: String) -> String {
        var key: (UInt64, UInt64) = (0, 0)
        var text = k
        let isUUID = text.withUTF8 { ApnsIDKey.encode($0, into: &key) } != nil
        return isUUID ? k.lowercased() : k
    }

    /// The hex digits of an apns-id prefix (dashes left out) in lower case, or '' when it is not one.
    static func hexPrefix(_ k: String) -> String {
        let digits = k.filter { $0 != "-" }
        guard !digits.isEmpty, digits.count <= 32, digits.allSatisfy(\.isHexDigit) else { return "" }
        return digits.lowercased()
    }

    /// A key of up to 16 bytes as a UUID's text, zeros after it: the same place in the order of
    /// 16-byte keys as the shorter key.
    static func uuidText(_ key: [UInt8]) -> String {
        let bytes = key + [UInt8](repeating: 0, count: max(0, 16 - key.count))
        let hex = bytes.prefix(16).map { (b: UInt8) -> String in
            let s = String(b, radix: 16)
            return s.count < 2 ? "0" + s : s
        }.joined()
        let c = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(c[$0]) }.joined(separator: "-")
    }

    /// A token key's parts: the prefix and suffix around the '…' (or '...') of the masked form
    /// outputs print (first 8 … last 4), or the whole key as a prefix; hex ones in lower case.
    static func tokenKey(_ k: String) -> (prefix: String, suffix: String) {
        var prefix = k, suffix = ""
        for sep in ["…", "..."] where k.contains(sep) {
            let parts = k.components(separatedBy: sep)
            prefix = parts.first ?? ""
            suffix = parts.last ?? ""
        }
        let isHex = prefix.allSatisfy { $0.isHexDigit } && suffix.allSatisfy { $0.isHexDigit }
        if isHex { prefix = prefix.lowercased(); suffix = suffix.lowercased() }
        return (prefix, suffix)
    }

    /// The trace document of `key`: its timeline sections under a title naming what the key
    /// resolved to (`label`, e.g. "device d1"). The title never carries a full token: outputs
    /// mask tokens in columns, not in titles.
    static func document(key: String, label: String, token: String?, sections: [ResultTable]) -> ResultDocument {
        var doc = ResultDocument(report: "trace", title: "Trace of \(label)", params: [("key", .text(key))], sections: sections)
        if let token { doc.title = "Trace of token " + TokenMask.mask(token) }
        return doc
    }

    /// The range of 16-byte keys whose UUID starts with `hexPrefix` (dashes ignored), or nils when
    /// it is not hex.
    static func keyRange(hexPrefix: String) -> ([UInt8]?, [UInt8]?) {
        let digits = hexPrefix.filter { $0 != "-" }
        guard !digits.isEmpty, digits.count <= 32, digits.allSatisfy(\.isHexDigit) else { return (nil, nil) }
        let nibbles = digits.map { UInt8($0.hexDigitValue!) }
        var lo: [UInt8] = []
        var i = 0
        while i + 1 < nibbles.count { lo.append(nibbles[i] << 4 | nibbles[i + 1]); i += 2 }
        var hi = lo
        if i < nibbles.count {
            lo.append(nibbles[i] << 4)
            hi.append(nibbles[i] << 4)
            hi[hi.count - 1] &+= 16
            if nibbles[i] < 15 { return (lo, hi) }
            hi.removeLast()
        }
        // Increment the last byte that can be (a prefix of all f's has no upper bound: 17 x ff).
        while let last = hi.last, last == 0xFF { hi.removeLast() }
        if hi.isEmpty { return (lo, [UInt8](repeating: 0xFF, count: 18)) }
        hi[hi.count - 1] += 1
        return (lo, hi)
    }

    public func run(_ key: String) throws -> ResultDocument {
        let (subject, label) = try resolve(key)
        var sections: [ResultTable] = []
        var token: String?
        switch subject {
        case .token(let t):
            // The token's own records first; its devices' settings and other tokens after, as context.
            token = t
            sections.append(try timeline("timeline", Scope(tokens: [t])))
            let devices = try engine.strings("trace", "token_devices", lists: ["tokens": [t]])
            let others = try engine.strings("trace", "device_tokens", lists: ["devices": devices]).filter { $0 != t }
            sections.append(try timeline("device_context", Scope(tokens: others, devices: devices, excluding: [t])))
        case .apnsID(let a):
            sections.append(try timeline("timeline", Scope(apns: a)))
            let tokens = try engine.strings("trace", "apns_tokens", ["key": .text(a)])
            sections.append(try timeline("token_context", Scope(tokens: tokens, kinds: ["register", "unregister"])))
        case .device(let d):
            let tokens = try engine.strings("trace", "device_tokens", lists: ["devices": [d]])
            sections.append(try timeline("timeline", Scope(tokens: tokens, devices: [d])))
        case .user(let u):
            let devices = try engine.strings("trace", "user_devices", ["key": .text(u)])
            let tokens = try engine.strings("trace", "user_tokens", ["key": .text(u)])
            sections.append(try timeline("timeline", Scope(tokens: tokens, devices: devices, user: u)))
        }
        return Trace.document(key: key, label: label, token: token, sections: sections)
    }

    /// Which records a timeline holds: of these tokens, devices, user or apns-id.
    struct Scope {
        var tokens: [String] = []
        var devices: [String] = []
        var user: String? = nil
        var apns: String? = nil
        /// Records of these tokens are left out (they are another section's).
        var excluding: [String] = []
        /// Only these kinds, or all when empty.
        var kinds: [String] = []
    }

    /// Every record of `scope` in time order, with the source file and line of each.
    func timeline(_ section: String, _ scope: Scope) throws -> ResultTable {
        var t = try engine.statement(
            "trace", "timeline", ["user": scope.user.map { .text($0) } ?? .null, "apns": scope.apns.map { .text($0) } ?? .null],
            lists: ["tokens": scope.tokens, "devices": scope.devices, "excluding": scope.excluding, "kinds": scope.kinds])
        t.name = section
        return t
    }
}

/// Why a trace key found no timeline: nothing matched it, or several things did (give more of it).
public enum TraceError: Error, CustomStringConvertible {
    case notFound(String)
    case ambiguous(String)

    static func nothing(_ key: String) -> TraceError {
        .notFound("nothing matches '\(key)': not an apns-id, device, user or token (prefix) in this database")
    }

    static func severalTokens(_ key: String, _ tokens: [String]) -> TraceError {
        .ambiguous("'\(key)' matches several tokens (\(tokens.map { TokenMask.mask($0) }.joined(separator: ", "))…); give more characters")
    }

    static func severalApnsIDs(_ key: String, _ ids: [String]) -> TraceError {
        .ambiguous("'\(key)' is the start of several apns-ids (\(ids.joined(separator: ", "))…); give more characters")
    }
    public var description: String {
        switch self {
        case .notFound(let m), .ambiguous(let m): return m
        }
    }
}
