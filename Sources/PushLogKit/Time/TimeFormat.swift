/// Formats epoch milliseconds as UTC labels: RFC 3339, ISO weeks and report buckets.
public enum TimeFormat {
    @inline(__always) static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : (a - b + 1) / b }

    static func pad(_ v: Int, _ w: Int) -> String {
        let s = String(v)
        return s.count >= w ? s : String(repeating: "0", count: w - s.count) + s
    }

    public static func rfc3339(ms: Int64, fraction: Bool = true) -> String {
        let days = Int(floorDiv(ms, 86_400_000))
        let rem = Int(ms - Int64(days) * 86_400_000)
        let (y, m, d) = CivilDate.date(days: days)
        let h = rem / 3_600_000, mi = rem / 60_000 % 60, s = rem / 1000 % 60, f = rem % 1000
        var out = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2))"
        if fraction && f != 0 { out += ".\(pad(f, 3))" }
        return out + "Z"
    }

    static func day(ms: Int64) -> String {
        let (y, m, d) = CivilDate.date(days: Int(floorDiv(ms, 86_400_000)))
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// Monday 00:00 UTC of the ISO week holding `ms`.
    static func weekStart(ms: Int64) -> Int64 {
        let days = floorDiv(ms, 86_400_000)
        let weekday = Int((days + 3) % 7 + 7) % 7  // 0 = Monday (1970-01-01 was a Thursday)
        return (days - Int64(weekday)) * 86_400_000
    }

    /// ISO week label, `2026-W45`.
    static func isoWeek(ms: Int64) -> String {
        let monday = weekStart(ms: ms)
        let thursday = monday + 3 * 86_400_000  // the ISO year is the Thursday's year
        let (y, _, _) = CivilDate.date(days: Int(floorDiv(thursday, 86_400_000)))
        let jan1 = CivilDate.epochMs(year: y, month: 1, day: 1)
        let week = Int((thursday - jan1) / (7 * 86_400_000)) + 1
        return "\(pad(y, 4))-W\(pad(week, 2))"
    }

    /// Monday 00:00 UTC of ISO week `week` of `year`.
    static func isoWeekStart(year: Int, week: Int) -> Int64 {
        let jan4 = CivilDate.epochMs(year: year, month: 1, day: 4)
        return weekStart(ms: jan4) + Int64(week - 1) * 7 * 86_400_000
    }

    /// A bucket label: `minute` 2026-11-02T14:05, `5m`, `hour` 2026-11-02T14, `day` 2026-11-02, `week` 2026-W45.
    static func bucket(ms: Int64, by: String) -> String {
        switch by {
        case "week": return isoWeek(ms: ms)
        case "day": return day(ms: ms)
        case "hour": return String(rfc3339(ms: floorDiv(ms, 3_600_000) * 3_600_000, fraction: false).prefix(13))
        case "5m": return String(rfc3339(ms: floorDiv(ms, 300_000) * 300_000, fraction: false).prefix(16))
        case "minute": return String(rfc3339(ms: floorDiv(ms, 60_000) * 60_000, fraction: false).prefix(16))
        default: return day(ms: ms)
        }
    }
}
