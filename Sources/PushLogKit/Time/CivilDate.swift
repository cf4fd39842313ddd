/// Proleptic Gregorian calendar arithmetic in UTC, shared by time parsing (Formats) and time
/// labels (TimeFormat) so neither reaches into the other.
enum CivilDate {
    /// Days since 1970-01-01 of a civil date.
    @inline(__always) static func days(year y0: Int, month m: Int, day d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The civil date of a day number (days since 1970-01-01): the inverse of `days`.
    static func date(days z0: Int) -> (y: Int, m: Int, d: Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Epoch milliseconds of a UTC civil time.
    static func epochMs(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Int64 {
        let days = days(year: year, month: month, day: day)
        return Int64(((days * 24 + hour) * 60 + minute) * 60 + second) * 1000
    }
}
