import Foundation

/// The type of a scalar value as a format parser saw it.
enum ValueType { case string, number, bool, null }

/// Collects key/value pairs of one record into an `Event`, then validates and normalises it.
/// Every format fills the one its sink owns, so all formats obey the same aliases and rules.
final class EventBuilder {
    var event = Event()
    /// Scratch memory for unescaped strings and normalised tokens; reset per line.
    let arena: UnsafeMutablePointer<UInt8>
    let arenaCapacity = 3 << 20
    var arenaUsed = 0
    /// A top-level `timestamp`: the record time or a 410 body's timestamp, decided in `finish`.
    var topTimestamp: ByteSlice?
    var topTimestampType: ValueType = .null
    /// The first problem met while assigning values; the line becomes a reject.
    var problem: RejectReason?
    var customKeysStart = -1
    var eventName: ByteSlice?
    /// The line has a key of another tool's record shape (`Field.shape`).
    var foreignShape = false
    /// A tool's APNs answer that names no token (Pushy's bare rejection) is a response whose
    /// token is unknown, not a reject; set by the formats that read tools' answer lines.
    var unknownTokenIsResponse = false
    let keys = FieldKeyTable()

    init() { arena = .allocate(capacity: 3 << 20) }
    deinit { arena.deallocate() }

    @inline(__always) func reset() {
        event = Event()
        arenaUsed = 0
        topTimestamp = nil
        problem = nil
        customKeysStart = -1
        eventName = nil
        foreignShape = false
        unknownTokenIsResponse = false
    }

    /// Copies bytes into the arena and returns the stable slice.
    @inline(__always) func allocate(_ n: Int) -> UnsafeMutablePointer<UInt8>? {
        guard arenaUsed + n <= arenaCapacity else { return nil }
        let p = arena + arenaUsed
        arenaUsed += n
        return p
    }

    func store(_ s: StaticString) -> ByteSlice { ByteSlice(start: s.utf8Start, count: s.utf8CodeUnitCount) }

    // MARK: assignment

    /// Assigns a scalar value to a field. `nested` is true inside a `response`/`body` object.
    @inline(__always) func assign(_ f: Field, _ v: ByteSlice, _ type: ValueType, nested: Bool = false) {
        if type == .null { return }
        switch f {
        case .time: if event.time == nil { event.time = parseTime(v, "time") }
        case .timestamp:
            if nested { event.apnsTimestamp = parseTime(v, "timestamp") } else { topTimestamp = v; topTimestampType = type }
        case .event: eventName = v
        case .token: event.token = v
        case .apnsID: event.apnsID = v
        case .status: event.status = parseInt(v, "status")
        case .reason: event.reason = v
        case .env: event.env = v
        case .host: if event.env == nil { event.env = envFromHost(v) }
        case .topic: event.topic = v
        case .pushType: event.pushType = v
        case .priority: event.priority = parseInt(v, "priority")
        case .collapseID: event.collapseID = v
        case .expiration: event.expiration = parseInt(v, "expiration")
        case .payloadBytes: event.payloadBytes = parseInt(v, "payload_bytes")
        case .payload: break  // a payload given as a scalar string is scanned by the parser
        case .contentAvailable: event.contentAvailable = parseBool(v)
        case .mutableContent: event.mutableContent = parseBool(v)
        case .alert: event.hasAlert = presence(v, type)
        case .sound: event.hasSound = presence(v, type)
        case .badge: event.hasBadge = presence(v, type)
        case .category: event.category = v
        case .threadID: event.threadID = v
        case .interruptionLevel: event.interruptionLevel = v
        case .relevanceScore: event.relevance = parseDouble(v)
        case .apnsTimestamp: event.apnsTimestamp = parseTime(v, "apns_timestamp")
        case .apnsUniqueID: event.apnsUniqueID = v
        case .latencyMs: event.latencyMs = parseDouble(v)
        case .attempt: event.attempt = parseInt(v, "attempt")
        case .device: event.device = v
        case .user: event.user = v
        case .appVersion: event.appVersion = v
        case .osVersion: event.osVersion = v
        case .auth: event.auth = v
        case .receipt: event.receipt = v
        case .result: event.result = v
        case .alertSetting: event.alertSetting = v
        case .soundSetting: event.soundSetting = v
        case .badgeSetting: event.badgeSetting = v
        case .lockScreen: event.lockScreen = v
        case .notificationCenter: event.notificationCenter = v
        case .error: event.error = v
        case .response, .body, .aps: break
        case .shape: foreignShape = true
        }
    }

    /// Assigns a Swift string (copied into the arena), for formats parsed into a tree.
    func assign(_ f: Field, string: String, _ type: ValueType = .string, nested: Bool = false) {
        var s = string
        s.withUTF8 { buf in
            guard let dst = allocate(max(buf.count, 1)) else { return }
            if buf.count > 0 { dst.update(from: buf.baseAddress!, count: buf.count) }
            assign(f, ByteSlice(start: dst, count: buf.count), type, nested: nested)
        }
    }

    /// Assigns a value by key name (aliases apply); unknown keys are ignored.
    func assign(key: String, string: String, _ type: ValueType = .string) {
        if let f = keys.field(key) { assign(f, string: string, type) }
    }

    /// Sets the event kind by name, as an `event` field would.
    func setKind(_ name: StaticString) {
        eventName = ByteSlice(start: name.utf8Start, count: name.utf8CodeUnitCount)
    }

    /// Notes a payload's custom top-level key (kept by name only).
    func addCustomKey(_ p: UnsafePointer<UInt8>, _ n: Int) {
        guard n > 0, n < 128 else { return }
        if customKeysStart < 0 { customKeysStart = arenaUsed } else if let c = allocate(1) { c.pointee = 0x2C }
        if let dst = allocate(n) { dst.update(from: p, count: n) }
        event.customKeys = ByteSlice(start: arena + customKeysStart, count: arenaUsed - customKeysStart)
    }

    // MARK: value parsing

    @inline(__always) func parseInt(_ v: ByteSlice, _ name: String) -> Int64? {
        var i = 0, neg = false, x: Int64 = 0
        let n = v.count
        if n > 0 && v[0] == 0x2D { neg = true; i = 1 }
        let start = i
        while i < n {
            let c = v[i]
            if c < 0x30 || c > 0x39 { break }
            if i - start >= 18 { if problem == nil { problem = .outOfRange(field: name) }; return nil }
            x = x * 10 + Int64(c - 0x30)
            i += 1
        }
        if i == start || (i < n && !(v[i] == 0x2E && v[(i + 1)...].allSatisfy { $0 == 0x30 })) {
            if let d = parseDouble(v), d.rounded() == d, abs(d) < 1e15 { return Int64(d) }
            if problem == nil { problem = .notAnInteger(field: name, text: String(decoding: v.prefix(40), as: UTF8.self)) }
            return nil
        }
        return neg ? -x : x
    }

    /// Decimal number with optional fraction and exponent; nil when anything else is in it.
    func parseDouble(_ v: ByteSlice) -> Double? {
        let n = v.count
        var i = 0
        var neg = false
        if i < n && (v[i] == 0x2D || v[i] == 0x2B) { neg = v[i] == 0x2D; i += 1 }
        var mant = 0.0, digits = 0, scale = 0
        while i < n, v[i] >= 0x30, v[i] <= 0x39 { mant = mant * 10 + Double(v[i] - 0x30); i += 1; digits += 1 }
        if i < n && v[i] == 0x2E {
            i += 1
            while i < n, v[i] >= 0x30, v[i] <= 0x39 { mant = mant * 10 + Double(v[i] - 0x30); i += 1; digits += 1; scale -= 1 }
        }
        if digits == 0 { return nil }
        if i < n && (v[i] == 0x65 || v[i] == 0x45) {
            i += 1
            var eneg = false, e = 0, ed = 0
            if i < n && (v[i] == 0x2D || v[i] == 0x2B) { eneg = v[i] == 0x2D; i += 1 }
            while i < n, v[i] >= 0x30, v[i] <= 0x39, ed < 5 { e = e * 10 + Int(v[i] - 0x30); i += 1; ed += 1 }
            if ed == 0 { return nil }
            scale += eneg ? -e : e
        }
        if i != n { return nil }
        let d = mant * pow(10.0, Double(scale))
        guard d.isFinite else { return nil }
        return neg ? -d : d
    }

    @inline(__always) func parseTime(_ v: ByteSlice, _ name: String) -> Int64? {
        if let t = TimeParser.parse(v), t > -62_135_596_800_000, t < 253_402_300_800_000 { return t }
        if problem == nil { problem = .badValue(field: name, text: String(decoding: v.prefix(40), as: UTF8.self)) }
        return nil
    }

    @inline(__always) func parseBool(_ v: ByteSlice) -> Bool? {
        guard v.count > 0 else { return nil }
        return !EventBuilder.meansFalse(v)
    }

    /// Whether a flag such as `alert` says the push carried it. Text formats spell booleans as
    /// words, so `false`, `no`, `off`, `0` and empty mean "not carried" whatever the value's type;
    /// any other value (an alert's text, an object) means it was.
    @inline(__always) func presence(_ v: ByteSlice, _ type: ValueType) -> Bool {
        switch type {
        case .null: return false
        case .bool: return v.count > 0 && (v[0] == 0x74 || v[0] == 0x54)
        case .string, .number: return !EventBuilder.meansFalse(v)
        }
    }

    static func meansFalse(_ v: ByteSlice) -> Bool {
        switch v.count {
        case 0: return true
        case 1: return v[0] == 0x30
        case 2: return v[0] | 0x20 == 0x6E && v[1] | 0x20 == 0x6F  // no
        case 3: return v[0] | 0x20 == 0x6F && v[1] | 0x20 == 0x66 && v[2] | 0x20 == 0x66  // off
        case 5: return v[0] | 0x20 == 0x66 && String(decoding: v, as: UTF8.self).lowercased() == "false"
        default: return false
        }
    }

    func envFromHost(_ v: ByteSlice) -> ByteSlice? {
        let s = String(decoding: v, as: UTF8.self).lowercased()
        if s.contains("sandbox") || s.contains("development") { return store("sandbox") }
        if s.contains("push.apple.com") { return store("production") }
        return nil
    }
}
