/// Bytes of a string value; they point into the current line or the parser's scratch arena.
public typealias ByteSlice = UnsafeBufferPointer<UInt8>

/// One normalised record, as every format parser produces it. String fields are borrowed
/// slices, valid until the next line is parsed.
public struct Event {
    public var kind: EventKind?
    public var time: Int64?
    public var token: ByteSlice?
    public var tokenMalformed = false
    public var tokenMasked = false
    public var apnsID: ByteSlice?
    public var env: ByteSlice?
    public var topic: ByteSlice?
    public var pushType: ByteSlice?
    public var priority: Int64?
    public var collapseID: ByteSlice?
    public var expiration: Int64?
    public var payloadBytes: Int64?
    public var contentAvailable: Bool?
    public var mutableContent: Bool?
    public var hasAlert: Bool?
    public var hasSound: Bool?
    public var hasBadge: Bool?
    public var category: ByteSlice?
    public var threadID: ByteSlice?
    public var interruptionLevel: ByteSlice?
    public var relevance: Double?
    public var customKeys: ByteSlice?
    public var status: Int64?
    public var reason: ByteSlice?
    public var apnsTimestamp: Int64?
    public var apnsUniqueID: ByteSlice?
    public var latencyMs: Double?
    public var attempt: Int64?
    public var error: ByteSlice?
    public var device: ByteSlice?
    public var user: ByteSlice?
    public var appVersion: ByteSlice?
    public var osVersion: ByteSlice?
    public var auth: ByteSlice?
    public var receipt: ByteSlice?
    public var result: ByteSlice?
    public var alertSetting: ByteSlice?
    public var soundSetting: ByteSlice?
    public var badgeSetting: ByteSlice?
    public var lockScreen: ByteSlice?
    public var notificationCenter: ByteSlice?

    public init() {}
}

extension ByteSlice {
    /// The slice as a Swift string (tests, diagnostics; not the hot path).
    public var string: String { String(decoding: self, as: UTF8.self) }

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
