/// Validates UTF-8 quickly: eight ASCII bytes at a time, the full rules only where needed.
enum UTF8Check {
    static func isValid(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = b.baseAddress else { return true }
        let n = b.count
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        while i < n {
            let c = p[i]
            if c < 0x80 { i += 1; continue }
            var need = 0
            var minCode: UInt32 = 0
            var code: UInt32 = 0
            if c & 0xE0 == 0xC0 {
                need = 1; code = UInt32(c & 0x1F); minCode = 0x80
            } else if c & 0xF0 == 0xE0 {
                need = 2; code = UInt32(c & 0x0F); minCode = 0x800
            } else if c & 0xF8 == 0xF0 {
                need = 3; code = UInt32(c & 0x07); minCode = 0x10000
            } else {
                return false
            }
            if i + need >= n { return false }
            for k in 1...need {
                let d = p[i + k]
                if d & 0xC0 != 0x80 { return false }
                code = code << 6 | UInt32(d & 0x3F)
            }
            if code < minCode || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF) { return false }
            i += need + 1
        }
        return true
    }
}
