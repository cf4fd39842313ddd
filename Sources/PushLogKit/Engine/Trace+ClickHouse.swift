/// `trace KEY` on a ClickHouse server: what the key names is worked out in the order and with the
/// messages of the SQLite Trace, the scope (tokens, devices, user, apns-id) likewise, and each
/// timeline comes from Queries/clickhouse/trace.sql with the SQLite timeline's columns and details.
public struct ClickHouseTrace {
    let statements: ClickHouseStatements

    public init(_ client: ClickHouseClient) throws {
        statements = try ClickHouseStatements(client, command: "trace")
    }

    /// What a key names (by name: ClickHouse keeps no ids).
    enum Subject {
        case token(String)
        case device(String)
        case user(String)
        case apnsID(String)
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

    func exists(_ section: String, _ key: String) throws -> Bool {
        guard case .int(let n)? = try statements.run(section, ["key": .text(key)]).rows.first?.first else { return false }
        return n > 0
    }

    func resolve(_ key: String) throws -> (Subject, String) {
        let k = key.trimmingCharacters(in: .whitespaces)
        if try exists("apns_id", ClickHouseTrace.apnsKey(k)) { return (.apnsID(ClickHouseTrace.apnsKey(k)), "apns-id \(k)") }
        if try exists("device", k) { return (.device(k), "device \(k)") }
        if try exists("user", k) { return (.user(k), "user \(k)") }
        let (prefix, suffix) = Trace.tokenKey(k)
        let found = try statements.strings("tokens", ["prefix": .text(prefix), "suffix": .text(suffix)])
        if found.isEmpty && k.count >= 4 {
            // An apns-id prefix (the first block of a UUID is what people copy from a log line).
            let ids = try statements.strings("apns_prefix", ["key": .text(k), "hex": .text(ClickHouseTrace.hexPrefix(k))])
            if ids.count == 1 { return (.apnsID(ids[0]), "apns-id \(ids[0])") }
            if ids.count > 1 { throw TraceError.severalApnsIDs(key, ids) }
        }
        guard !found.isEmpty else { throw TraceError.nothing(key) }
        guard found.count == 1 else { throw TraceError.severalTokens(key, found) }
        return (.token(found[0]), "token \(found[0])")
    }

    /// The timeline document of `key`, as Trace.run gives it on SQLite.
    public func run(_ key: String) throws -> ResultDocument {
        let (subject, label) = try resolve(key)
        var sections: [ResultTable] = []
        var token: String?
        switch subject {
        case .token(let t):
            // The token's own records first; its devices' settings and other tokens after, as context.
            token = t
            sections.append(try timeline("timeline", tokens: [t]))
            let devices = try statements.strings("token_devices", lists: ["tokens": [t]])
            let others = try statements.strings("device_tokens", lists: ["devices": devices]).filter { $0 != t }
            sections.append(try timeline("device_context", tokens: others, devices: devices, excluding: [t]))
        case .apnsID(let a):
            sections.append(try timeline("timeline", apns: a))
            let tokens = try statements.strings("apns_tokens", ["key": .text(a)])
            sections.append(try timeline("token_context", tokens: tokens, kinds: ["register", "unregister"]))
        case .device(let d):
            let tokens = try statements.strings("device_tokens", lists: ["devices": [d]])
            sections.append(try timeline("timeline", tokens: tokens, devices: [d]))
        case .user(let u):
            let devices = try statements.strings("user_devices", ["key": .text(u)])
            let tokens = try statements.strings("user_tokens", ["key": .text(u)])
            sections.append(try timeline("timeline", tokens: tokens, devices: devices, user: u))
        }
        return Trace.document(key: key, label: label, token: token, sections: sections)
    }

    func timeline(
        _ section: String, tokens: [String] = [], devices: [String] = [], user: String? = nil, apns: String? = nil,
        excluding: [String] = [], kinds: [String] = []
    ) throws -> ResultTable {
        var t = try statements.run(
            "timeline", ["user": user.map { .text($0) } ?? .null, "apns": apns.map { .text($0) } ?? .null],
            lists: ["tokens": tokens, "devices": devices, "excluding": excluding, "kinds": kinds])
        t.name = section
        return t
    }
}
