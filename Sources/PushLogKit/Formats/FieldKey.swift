/// The canonical fields a record's keys map to: the event schema's keys and their aliases.
enum Field: UInt8, Sendable {
    case time, timestamp, event, token, apnsID, status, reason, env, host, topic, pushType, priority
    case collapseID, expiration, payloadBytes, payload, contentAvailable, mutableContent, alert, sound, badge
    case category, threadID, interruptionLevel, relevanceScore, apnsTimestamp, apnsUniqueID, latencyMs, attempt
    case device, user, appVersion, osVersion, auth, receipt, result, alertSetting, soundSetting, badgeSetting
    case lockScreen, notificationCenter, response, body, error, aps
    /// A key that marks another tool's record (Braze's `event_type`, Pinpoint's `channelType`):
    /// the canonical reader leaves the line to that tool's reader.
    case shape
}

/// Maps a key to its field: case-insensitive, `-` and `_` ignored, with the event schema's aliases.
///
/// An open-addressed table of 512 slots keyed by an FNV-1a hash of the folded key; a hash hit
/// is confirmed by comparing the folded bytes, so a crafted key whose hash collides with a
/// known one's is still an unknown key.
struct FieldKeyTable {
    static let slotCount = 512
    /// One slot: the key's hash, its field (255: empty) and where its folded bytes are.
    struct Slot {
        var hash: UInt64 = 0
        var field: UInt8 = 255
        var keyStart: Int32 = 0
        var keyLength: Int32 = 0
    }
    // Two arrays only: the lookup runs for every key of every line, and each array the table
    // holds is one more retain/release per call.
    private var slots = [Slot](repeating: Slot(), count: slotCount)
    /// Every alias folded (lower case, no `-` or `_`), one after another.
    private var folded: [UInt8] = []

    static let aliases: [(String, Field)] = [
        ("time", .time), ("ts", .time), ("@timestamp", .time), ("timestamp", .timestamp),
        ("event", .event),
        ("token", .token), ("device_token", .token), ("deviceToken", .token), ("push_token", .token),
        ("apns_id", .apnsID), ("apns-id", .apnsID), ("apnsId", .apnsID), ("ApnsID", .apnsID),
        ("status", .status), (":status", .status), ("status_code", .status), ("StatusCode", .status),
        ("reason", .reason), ("env", .env), ("environment", .env), ("host", .host),
        ("topic", .topic), ("apns-topic", .topic), ("push_type", .pushType), ("apns-push-type", .pushType),
        ("priority", .priority), ("apns-priority", .priority), ("collapse_id", .collapseID),
        ("apns-collapse-id", .collapseID), ("expiration", .expiration), ("apns-expiration", .expiration),
        ("payload_bytes", .payloadBytes), ("payload_size", .payloadBytes), ("payload", .payload),
        ("content_available", .contentAvailable), ("mutable_content", .mutableContent),
        ("alert", .alert), ("sound", .sound), ("badge", .badge), ("category", .category),
        ("thread_id", .threadID), ("interruption_level", .interruptionLevel),
        ("relevance_score", .relevanceScore), ("apns_timestamp", .apnsTimestamp),
        ("apns_unique_id", .apnsUniqueID), ("apns-unique-id", .apnsUniqueID),
        ("latency_ms", .latencyMs), ("latency", .latencyMs), ("attempt", .attempt), ("attempts", .attempt),
        ("device", .device), ("device_id", .device), ("user", .user), ("user_id", .user),
        ("app_version", .appVersion), ("os_version", .osVersion), ("auth", .auth),
        ("authorization_status", .auth), ("receipt", .receipt), ("result", .result),
        ("alert_setting", .alertSetting), ("sound_setting", .soundSetting), ("badge_setting", .badgeSetting),
        ("lock_screen", .lockScreen), ("lock_screen_setting", .lockScreen),
        ("notification_center", .notificationCenter), ("notification_center_setting", .notificationCenter),
        ("response", .response), ("body", .body), ("error", .error), ("aps", .aps),
        ("event_type", .shape), ("push_token_state_change_type", .shape), ("channel_type", .shape),
        ("push_provider_response", .shape), ("delivery_status", .shape),
    ]

    init() {
        for (name, f) in FieldKeyTable.aliases { insert(name, f) }
    }

    /// Adds one alias (several spell the same folded key: `apns_id`, `apnsId`; the first wins).
    mutating func insert(_ name: String, _ f: Field) {
        let bytes = Array(name.utf8)
        let h = bytes.withUnsafeBufferPointer { FieldKeyTable.hash($0.baseAddress!, $0.count) }
        var i = Int(h & UInt64(FieldKeyTable.slotCount - 1))
        while slots[i].field != 255 {
            if slots[i].hash == h && bytes.withUnsafeBufferPointer({ matches(slots[i], $0.baseAddress!, $0.count) }) { return }
            i = (i + 1) & (FieldKeyTable.slotCount - 1)
        }
        let start = Int32(folded.count)
        for var c in bytes where c != 0x2D && c != 0x5F {
            if c >= 0x41 && c <= 0x5A { c |= 0x20 }
            folded.append(c)
        }
        slots[i] = Slot(hash: h, field: f.rawValue, keyStart: start, keyLength: Int32(folded.count) - start)
    }

    /// FNV-1a over the key folded to lower case, skipping `-` and `_`.
    @inline(__always) static func hash(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for i in 0..<n {
            var c = p[i]
            if c == 0x2D || c == 0x5F { continue }
            if c >= 0x41 && c <= 0x5A { c |= 0x20 }
            h = (h ^ UInt64(c)) &* 0x100_0000_01b3
        }
        return h
    }

    /// Whether the key folds to exactly the folded key stored in `slot`.
    @inline(__always) func matches(_ slot: Slot, _ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        folded.withUnsafeBufferPointer { f in
            let q = f.baseAddress! + Int(slot.keyStart)
            let m = Int(slot.keyLength)
            // Most keys are written exactly as their folded form ("time", "token"): a plain compare.
            if n == m {
                var i = 0
                while i < n && p[i] == q[i] { i += 1 }
                if i == n { return true }
            }
            return FieldKeyTable.foldedEqual(p, n, q, m)
        }
    }

    /// The key folded (lower case, no `-` or `_`) equals the `m` bytes at `q`.
    static func foldedEqual(_ p: UnsafePointer<UInt8>, _ n: Int, _ q: UnsafePointer<UInt8>, _ m: Int) -> Bool {
        var k = 0
        for i in 0..<n {
            var c = p[i]
            if c == 0x2D || c == 0x5F { continue }
            if c >= 0x41 && c <= 0x5A { c |= 0x20 }
            guard k < m, q[k] == c else { return false }
            k += 1
        }
        return k == m
    }

    /// The field of a key, or nil for unknown keys.
    @inline(__always) func field(_ p: UnsafePointer<UInt8>, _ n: Int) -> Field? {
        field(p, n, hash: FieldKeyTable.hash(p, n))
    }

    /// The lookup once the key's hash is known (tests pass a colliding hash here).
    @inline(__always) func field(_ p: UnsafePointer<UInt8>, _ n: Int, hash h: UInt64) -> Field? {
        var i = Int(h & UInt64(FieldKeyTable.slotCount - 1))
        while true {
            let slot = slots[i]
            if slot.field == 255 { return nil }
            if slot.hash == h && matches(slot, p, n) { return Field(rawValue: slot.field) }
            i = (i + 1) & (FieldKeyTable.slotCount - 1)
        }
    }

    func field(_ s: String) -> Field? {
        var s = s
        return s.withUTF8 { $0.count == 0 ? nil : field($0.baseAddress!, $0.count) }
    }
}
