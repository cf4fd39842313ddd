import Foundation

/// Parses the TIME forms (RFC 3339, dates, ISO weeks, epoch numbers, names, durations back) for --since/--until/--before.
public enum TimeArgument {
    /// Epoch ms of `s`, relative forms counted back from `now`.
    public static func parse(_ s0: String, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) -> Int64? {
        let s = s0.trimmingCharacters(in: .whitespaces)
        let day: Int64 = 86_400_000
        switch s.lowercased() {
        case "now": return now
        case "today": return TimeFormat.floorDiv(now, day) * day
        case "yesterday": return TimeFormat.floorDiv(now, day) * day - day
        default: break
        }
        if let w = week(s) { return w }
        // Relative durations: -2h, 7d, 90m, 30s, 2w
        var body = Substring(s)
        if body.hasPrefix("-") || body.hasPrefix("+") { body = body.dropFirst() }
        if let unit = body.last, "smhdw".contains(unit), let n = Double(body.dropLast()), n >= 0 {
            let ms: Double = ["s": 1e3, "m": 6e4, "h": 3.6e6, "d": 8.64e7, "w": 6.048e8][String(unit)]!
            guard n.isFinite, n * ms < 1e15 else { return nil }  // beyond ~30,000 years back
            return now - Int64(n * ms)
        }
        // `date +%Y%m%d` (20261109) is a day, not epoch seconds in August 1970.
        if s.count == 8, s.allSatisfy(\.isASCII), s.allSatisfy(\.isNumber), let y = Int(s.prefix(4)), (1970...2999).contains(y),
            let m = Int(s.dropFirst(4).prefix(2)), (1...12).contains(m), let d = Int(s.suffix(2)), (1...31).contains(d)
        {
            return TimeParser.parse(s.prefix(4) + "-" + s.dropFirst(4).prefix(2) + "-" + s.suffix(2))
        }
        return TimeParser.parse(s)
    }

    /// True for the forms counted from the clock (`now`, `today`, `yesterday`, `-2h`, `7d`): a
    /// range given so is aligned to whole buckets where buckets are compared.
    public static func isRelative(_ s0: String) -> Bool {
        let s = s0.trimmingCharacters(in: .whitespaces).lowercased()
        if ["now", "today", "yesterday"].contains(s) { return true }
        var body = Substring(s)
        if body.hasPrefix("-") || body.hasPrefix("+") { body = body.dropFirst() }
        guard let unit = body.last, "smhdw".contains(unit) else { return false }
        return Double(body.dropLast()) != nil
    }

    /// Start of an ISO week label (`2026-W45`, years 1–9999), or nil.
    public static func week(_ s: String) -> Int64? {
        let parts = s.uppercased().split(separator: "-")
        guard parts.count == 2, parts[1].hasPrefix("W"), let y = Int(parts[0]), (1...9999).contains(y),
            let w = Int(parts[1].dropFirst()), (1...53).contains(w)
        else { return nil }
        return TimeFormat.isoWeekStart(year: y, week: w)
    }
}
