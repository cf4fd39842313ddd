/// A time format of a line-format definition, strftime-like: `%Y` year, `%m` month, `%d` day,
/// `%e` space-padded day, `%b` month name, `%H` `%M` `%S`, `%f` a fraction (any digits), `%z` an
/// offset (`Z`, `+01:00`, `+0100`), `%%`; other characters match themselves. The time is UTC
/// unless `%z` says otherwise.
struct DefinitionTime: Sendable {
    enum Piece: Sendable {
        case literal(UInt8)
        case year, month, day, spaceDay, monthName, hour, minute, second, fraction, offset
    }
    let pieces: [Piece]

    /// nil when the format has an unknown `%` directive (`why` says which).
    init?(_ format: String, why: inout String) {
        var out: [Piece] = []
        var it = Array(format.utf8).makeIterator()
        while let c = it.next() {
            guard c == 0x25 else { out.append(.literal(c)); continue }
            switch it.next() {
            case UInt8(ascii: "Y"): out.append(.year)
            case UInt8(ascii: "m"): out.append(.month)
            case UInt8(ascii: "d"): out.append(.day)
            case UInt8(ascii: "e"): out.append(.spaceDay)
            case UInt8(ascii: "b"): out.append(.monthName)
            case UInt8(ascii: "H"): out.append(.hour)
            case UInt8(ascii: "M"): out.append(.minute)
            case UInt8(ascii: "S"): out.append(.second)
            case UInt8(ascii: "f"): out.append(.fraction)
            case UInt8(ascii: "z"): out.append(.offset)
            case UInt8(ascii: "%"): out.append(.literal(0x25))
            case let d?: why = "unknown time directive %\(Character(UnicodeScalar(d)))"; return nil
            case nil: why = "time format ends with %"; return nil
            }
        }
        pieces = out
    }

    /// Epoch milliseconds of `s`, or nil when it does not match the format.
    func parse(_ s: String) -> Int64? {
        let b = Array(s.utf8)
        var i = 0
        var y = 1970, mo = 1, d = 1, h = 0, mi = 0, sec = 0, fracMs = 0.0, offsetMin = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += n
            return v
        }
        for p in pieces {
            switch p {
            case .literal(let c): guard i < b.count, b[i] == c else { return nil }; i += 1
            case .year: guard let v = digits(4) else { return nil }; y = v
            case .month: guard let v = digits(2), (1...12).contains(v) else { return nil }; mo = v
            case .day: guard let v = digits(2), (1...31).contains(v) else { return nil }; d = v
            case .spaceDay:
                if i < b.count && b[i] == 0x20 {
                    i += 1; guard let v = digits(1) else { return nil }; d = v
                } else {
                    guard let v = digits(2) else { return nil }; d = v
                }
            case .monthName:
                guard i + 3 <= b.count, let m = SyslogPrefix.months.firstIndex(of: String(decoding: b[i..<(i + 3)], as: UTF8.self)) else {
                    return nil
                }
                mo = m + 1; i += 3
            case .hour: guard let v = digits(2), v < 24 else { return nil }; h = v
            case .minute: guard let v = digits(2), v < 60 else { return nil }; mi = v
            case .second: guard let v = digits(2), v <= 60 else { return nil }; sec = v
            case .fraction:
                var scale = 100.0
                let start = i
                while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { fracMs += Double(b[i] - 0x30) * scale; scale /= 10; i += 1 }
                if i == start { return nil }
            case .offset:
                guard i < b.count else { return nil }
                if b[i] == 0x5A { i += 1; continue }
                guard b[i] == 0x2B || b[i] == 0x2D else { return nil }
                let sign = b[i] == 0x2D ? -1 : 1
                i += 1
                guard let oh = digits(2) else { return nil }
                if i < b.count && b[i] == 0x3A { i += 1 }
                let om = digits(2) ?? 0
                offsetMin = sign * (oh * 60 + om)
            }
        }
        guard i == b.count else { return nil }
        return TimeParser.epochMs(year: y, month: mo, day: d, hour: h, minute: mi, second: sec)
            + Int64(fracMs.rounded()) - Int64(offsetMin) * 60_000
    }
}
