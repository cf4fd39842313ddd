import CSQLite

/// How an apns-id is stored: a UUID as its 16 bytes instead of 36 characters, whatever the case of
/// its letters (APNs writes the header upper case, many providers log it lower case: the same id
/// must join its request, response and receipts); it reads back lower case. Anything else stays
/// text, as logged.
enum ApnsIDKey {
    /// The 16 key bytes of a UUID (8-4-4-4-12 hex digits, any case) written into `out`, or nil
    /// when `text` is not one: the caller stores the text.
    @inline(__always)
    static func encode(_ text: UnsafeBufferPointer<UInt8>, into out: inout (UInt64, UInt64)) -> Int? {
        guard text.count == 36 else { return nil }
        var hi: UInt64 = 0, lo: UInt64 = 0
        var n = 0
        for i in 0..<36 {
            let c = text[i]
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == 0x2D else { return nil }
                continue
            }
            let v: UInt8
            switch c {
            case 0x30...0x39: v = c &- 0x30
            case 0x61...0x66: v = c &- 0x61 &+ 10
            case 0x41...0x46: v = c &- 0x41 &+ 10
            default: return nil
            }
            if n < 16 { hi = hi << 4 | UInt64(v) } else { lo = lo << 4 | UInt64(v) }
            n += 1
        }
        // Big-endian, so blob order (memcmp) is the order of the text.
        out = (hi.bigEndian, lo.bigEndian)
        return 16
    }

    /// Binds the key of an apns-id (blob for a UUID, the text otherwise).
    @inline(__always)
    static func bind(_ s: Statement, _ i: Int32, _ text: UnsafeBufferPointer<UInt8>) {
        var key: (UInt64, UInt64) = (0, 0)
        if let n = encode(text, into: &key) {
            withUnsafeBytes(of: &key) { s.bindBlob(i, $0.baseAddress!, n) }
        } else if let p = text.baseAddress {
            s.bindStatic(i, p, text.count)
        } else {
            s.bindStatic(i, StaticString("").utf8Start, 0)
        }
    }

    /// Binds the key of an apns-id given as a Swift string (user input).
    static func bind(_ s: Statement, _ i: Int32, text: String) {
        var t = text
        t.withUTF8 { buf in
            var key: (UInt64, UInt64) = (0, 0)
            if let n = encode(buf, into: &key) {
                withUnsafeBytes(of: &key) { s.bindBlob(i, $0.baseAddress!, n) }
            } else {
                s.bind(i, text)
            }
        }
    }

    /// The text of a stored key (the inverse of `encode`).
    /// Other blobs read as x'…' hex.
    static func text(_ key: UnsafeBufferPointer<UInt8>) -> String {
        guard key.count == 16 else {
            return "x'" + key.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() + "'"
        }
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, b) in key.prefix(16).enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(0x2D) }
            out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
