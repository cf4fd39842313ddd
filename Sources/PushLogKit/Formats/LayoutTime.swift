/// The time a logger layout writes around a tool's message: the first date with a time of day
/// in the text (`2026-11-02 08:00:00,250`, `2026-11-02T08:00:00.250Z`, Go's `2026/11/02
/// 08:00:00.000000`, `[2026-11-02 08:40:02.250 Z]`). A time of day alone (Logback's default
/// layout) or a date alone is not a time: a record needs the day it happened.
enum LayoutTime {
    /// Epoch ms of the first date-and-time in `b`, or nil.
    static func first(in b: ByteSlice) -> Int64? {
        let n = b.count
        guard n >= 16, let p = b.baseAddress else { return nil }
        @inline(__always) func isDigit(_ i: Int) -> Bool { i < n && p[i] >= 0x30 && p[i] <= 0x39 }
        var i = 0
        while i + 16 <= n {
            // "dddd-dd-dd" or "dddd/dd/dd", not inside a longer number.
            guard isDigit(i), i == 0 || !isDigit(i - 1), isDigit(i + 1), isDigit(i + 2), isDigit(i + 3),
                p[i + 4] == 0x2D || p[i + 4] == 0x2F, p[i + 7] == p[i + 4]
            else {
                i += 1
                continue
            }
            if let end = timeEnd(p, n, from: i), let t = TimeParser.parse(UnsafeBufferPointer(start: p + i, count: end - i)) {
                return t
            }
            i += 4
        }
        return nil
    }

    /// Where the date and time starting at `s` ends (after its fraction and zone), or nil when
    /// no time of day follows the date.
    static func timeEnd(_ p: UnsafePointer<UInt8>, _ n: Int, from s: Int) -> Int? {
        @inline(__always) func isDigit(_ i: Int) -> Bool { i < n && p[i] >= 0x30 && p[i] <= 0x39 }
        var i = s + 10
        guard i < n else { return nil }
        if p[i] == 0x54 || p[i] == 0x20 {
            i += 1
        } else {
            return nil
        }
        if i + 2 < n, p[i] == 0x2D, p[i + 1] == 0x20 { i += 2 }  // logrus's "2019/12/21 - 02:40:12"
        guard isDigit(i), isDigit(i + 1), i + 2 < n, p[i + 2] == 0x3A, isDigit(i + 3), isDigit(i + 4) else { return nil }
        i += 5
        if i + 2 < n, p[i] == 0x3A, isDigit(i + 1), isDigit(i + 2) {
            i += 3
            if i + 1 < n, p[i] == 0x2E || p[i] == 0x2C, isDigit(i + 1) {
                i += 1
                while isDigit(i) { i += 1 }
            }
        }
        // A zone: "Z", "+01:00", "+0100", or " Z" as Mattermost writes it.
        if i < n && (p[i] == 0x5A || p[i] == 0x7A) && !isWordByte(p, n, i + 1) {
            i += 1
        } else if i < n && (p[i] == 0x2B || p[i] == 0x2D) && isDigit(i + 1) && isDigit(i + 2) {
            i += 3
            if i < n && p[i] == 0x3A { i += 1 }
            if isDigit(i) && isDigit(i + 1) { i += 2 }
        } else if i + 1 < n && p[i] == 0x20 && p[i + 1] == 0x5A && !isWordByte(p, n, i + 2) {
            i += 2
        }
        return i
    }

    @inline(__always) static func isWordByte(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: Int) -> Bool {
        guard i < n else { return false }
        let c = p[i] | 0x20
        return (c >= 0x61 && c <= 0x7A) || (p[i] >= 0x30 && p[i] <= 0x39)
    }
}
