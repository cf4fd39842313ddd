/// Bytes of a string value; they point into the current line or the parser's scratch arena.
typealias ByteSlice = UnsafeBufferPointer<UInt8>

/// One normalised record, as every format parser produces it. String fields are borrowed
/// slices, valid until the next line is parsed.
struct Event {
    var kind: EventKind?
    var time: Int64?
    var token: ByteSlice?
    var tokenMalformed = false
    var tokenMasked = false
    var apnsID: ByteSlice?
    var env: ByteSlice?
    var topic: ByteSlice?
    var pushType: ByteSlice?
    var priority: Int64?
    var collapseID: ByteSlice?
    var expiration: Int64?
    var payloadBytes: Int64?
    var contentAvailable: Bool?
    var mutableContent: Bool?
    var hasAlert: Bool?
    var hasSound: Bool?
    var hasBadge: Bool?
    var category: ByteSlice?
    var threadID: ByteSlice?
    var interruptionLevel: ByteSlice?
    var relevance: Double?
    var customKeys: ByteSlice?
    var status: Int64?
    var reason: ByteSlice?
    var apnsTimestamp: Int64?
    var apnsUniqueID: ByteSlice?
    var latencyMs: Double?
    var attempt: Int64?
    var error: ByteSlice?
    var device: ByteSlice?
    var user: ByteSlice?
    var appVersion: ByteSlice?
    var osVersion: ByteSlice?
    var auth: ByteSlice?
    var receipt: ByteSlice?
    var result: ByteSlice?
    var alertSetting: ByteSlice?
    var soundSetting: ByteSlice?
    var badgeSetting: ByteSlice?
    var lockScreen: ByteSlice?
    var notificationCenter: ByteSlice?

    init() {}
}

extension ByteSlice {
    /// The slice as a Swift string (tests, diagnostics; not the hot path).
    var string: String { String(decoding: self, as: UTF8.self) }

    @inline(__always) func equalsASCII(_ s: StaticString) -> Bool {
        guard count == s.utf8CodeUnitCount else { return false }
        let q = s.utf8Start
        for i in 0..<count {
            var c = self[i]
            if c >= 0x41 && c <= 0x5A { c |= 0x20 }
            if c != q[i] { return false }
        }
        return true
    }
}
