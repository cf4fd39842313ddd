/// Removes secrets from text kept for rejects: JWTs, authorization/bearer values, private-key blocks.
enum Redactor {
    static func redact(_ s: String) -> String {
        var out = s
        // Private-key blocks, whole or cut off by the 512-byte limit.
        while let b = out.range(of: "-----BEGIN") {
            let tail = out[b.upperBound...]
            if let endMark = tail.range(of: "-----END"), let close = out[endMark.upperBound...].range(of: "-----") {
                out.replaceSubrange(b.lowerBound..<close.upperBound, with: "[REDACTED KEY]")
            } else {
                out.replaceSubrange(b.lowerBound..<out.endIndex, with: "[REDACTED KEY]")
            }
        }
        out = redactJWTs(out)
        out = redactAfterKeyword(out, "bearer")
        out = redactAfterKeyword(out, "authorization")
        return out
    }

    static func isJWTChar(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E || c == 0x3D
    }

    /// `eyJ...` base64url runs with at least one dot are JWTs (header.payload[.signature]).
    static func redactJWTs(_ s: String) -> String {
        let b = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            if i + 3 <= b.count && b[i] == 0x65 && b[i + 1] == 0x79 && b[i + 2] == 0x4A && (i == 0 || !isJWTChar(b[i - 1])) {
                var j = i
                var dots = 0
                while j < b.count && isJWTChar(b[j]) { if b[j] == 0x2E { dots += 1 }; j += 1 }
                if dots >= 1 && j - i >= 16 {
                    out.append(contentsOf: Array("[REDACTED JWT]".utf8))
                    i = j
                    continue
                }
            }
            out.append(b[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Replaces the value following a keyword (`Bearer abc`, `"authorization": "..."`, `authorization=...`).
    static func redactAfterKeyword(_ s: String, _ keyword: String) -> String {
        var b = Array(s.utf8)
        let k = Array(keyword.utf8)
        var i = 0
        while i + k.count <= b.count {
            var match = true
            for j in 0..<k.count where b[i + j] | 0x20 != k[j] { match = false; break }
            if !match { i += 1; continue }
            var j = i + k.count
            // Skip separators: quotes, colon, equals, spaces.
            while j < b.count && (b[j] == 0x22 || b[j] == 0x3A || b[j] == 0x3D || b[j] == 0x20 || b[j] == 0x27) { j += 1 }
            // "Authorization: Bearer x" keeps the scheme word and redacts what follows it.
            var w = j
            while w < b.count && b[w] != 0x20 && b[w] != 0x22 && b[w] != 0x27 { w += 1 }
            if w < b.count && b[w] == 0x20 && isScheme(b[j..<w]) {
                j = w
                while j < b.count && b[j] == 0x20 { j += 1 }
            }
            let valueStart = j
            // Already redacted (a JWT found first): leave it whole.
            if b[valueStart...].starts(with: Array("[REDACTED".utf8)) { i = valueStart + 1; continue }
            while j < b.count && b[j] != 0x22 && b[j] != 0x2C && b[j] != 0x7D && b[j] != 0x27 && b[j] != 0x20 { j += 1 }
            if j > valueStart {
                let marker = Array("[REDACTED]".utf8)
                b.replaceSubrange(valueStart..<j, with: marker)
                i = valueStart + marker.count
            } else {
                i = j
            }
        }
        return String(decoding: b, as: UTF8.self)
    }

    static func isScheme(_ s: ArraySlice<UInt8>) -> Bool {
        String(decoding: s, as: UTF8.self).lowercased() == "bearer"
    }
}
