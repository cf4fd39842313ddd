/// Parses the event schema's time forms (RFC 3339, naive UTC, epoch s/ms/µs) into epoch milliseconds (rounded, not truncated).
enum TimeParser {
    /// Epoch milliseconds of a UTC civil time (the calendar arithmetic lives in Model's CivilDate).
    static func epochMs(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Int64 {
        CivilDate.epochMs(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Parses a time given as bytes: RFC 3339 (T or space, Z or offset, fraction), naive UTC, or an epoch number.
    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var n = b.count
        guard n > 0 else { return nil }
        let p = b.baseAddress!
        while n > 0 && p[n - 1] == 0x20 { n -= 1 }
        @inline(__always) func digit(_ i: Int) -> Int? {
            guard i < n else { return nil }
            let c = Int(p[i]) - 48
            return c >= 0 && c <= 9 ? c : nil
        }
        @inline(__always) func num(_ i: Int, _ len: Int) -> Int? {
            var v = 0
            for k in 0..<len { guard let d = digit(i + k) else { return nil }; v = v * 10 + d }
            return v
        }
        // Epoch number: digits with an optional fraction, nothing else.
        if n < 5 || p[4] != 0x2D && p[4] != 0x2F {
            return parseEpoch(p, n)
        }
        guard n >= 10, let y = num(0, 4), let mo = num(5, 2), p[7] == p[4], let d = num(8, 2),
            (1...12).contains(mo), d >= 1, d <= 31
        else { return nil }
        var i = 10
        var h = 0, mi = 0, s = 0, fracMs = 0.0
        var offsetMin = 0
        if i < n {
            // gorush/logrus style "2019/12/21 - 02:40:12"
            if i + 3 <= n && p[i] == 0x20 && p[i + 1] == 0x2D && p[i + 2] == 0x20 {
                i += 3
            } else if p[i] == 0x54 || p[i] == 0x74 || p[i] == 0x20 {
                i += 1
            } else {
                return nil
            }
            guard let hh = num(i, 2), i + 2 < n, p[i + 2] == 0x3A, let mm = num(i + 3, 2) else { return nil }
            h = hh; mi = mm; i += 5
            if i < n && p[i] == 0x3A {
                guard let ss = num(i + 1, 2) else { return nil }
                s = ss; i += 3
                if i < n && (p[i] == 0x2E || p[i] == 0x2C) {
                    i += 1
                    var scale = 100.0
                    let fs = i
                    while let dg = digit(i) { fracMs += Double(dg) * scale; scale /= 10; i += 1 }
                    if i == fs { return nil }
                }
            }
            if i < n && p[i] == 0x20 { i += 1 }
            if i < n {
                if p[i] == 0x5A || p[i] == 0x7A {
                    i += 1
                } else if p[i] == 0x2B || p[i] == 0x2D {
                    let sign = p[i] == 0x2D ? -1 : 1
                    guard let oh = num(i + 1, 2) else { return nil }
                    i += 3
                    var om = 0
                    if i < n && p[i] == 0x3A { i += 1 }
                    if let m2 = num(i, 2) { om = m2; i += 2 }
                    offsetMin = sign * (oh * 60 + om)
                } else if n - i == 3, let zone = zoneOffsetMinutes(p[i], p[i + 1], p[i + 2]) {
                    // Go's "MST" layout (gaurun): the zone's abbreviation.
                    offsetMin = zone
                    i += 3
                } else {
                    return nil
                }
            }
            if i != n { return nil }
            guard h < 24, mi < 60, s <= 60 else { return nil }
        }
        let base = epochMs(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
        return base + Int64(fracMs.rounded()) - Int64(offsetMin) * 60_000
    }

    /// Minutes east of UTC of the zone abbreviations pushlog knows (UTC, GMT, JST, KST).
    private static func zoneOffsetMinutes(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> Int? {
        switch (a, b, c) {
        case (0x55, 0x54, 0x43), (0x47, 0x4D, 0x54): return 0
        case (0x4A, 0x53, 0x54), (0x4B, 0x53, 0x54): return 540
        default: return nil
        }
    }

    private static func parseEpoch(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int64? {
        var intPart: Int64 = 0
        var i = 0
        var digits = 0
        while i < n, p[i] >= 0x30, p[i] <= 0x39 {
            if digits > 17 { return nil }
            intPart = intPart * 10 + Int64(p[i] - 0x30); i += 1; digits += 1
        }
        if digits == 0 { return nil }
        var frac = 0.0
        if i < n && p[i] == 0x2E {
            i += 1
            var scale = 0.1
            while i < n, p[i] >= 0x30, p[i] <= 0x39 { frac += Double(p[i] - 0x30) * scale; scale /= 10; i += 1 }
        }
        if i != n { return nil }
        if intPart < 100_000_000_000 { return intPart * 1000 + Int64((frac * 1000).rounded()) }
        if intPart < 100_000_000_000_000 { return intPart + Int64(frac.rounded()) }
        return (intPart + 500) / 1000
    }

    /// Convenience for Swift strings.
    static func parse(_ s: String) -> Int64? {
        var s = s
        return s.withUTF8 { parse($0) }
    }
}
