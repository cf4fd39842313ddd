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

    /// Epoch milliseconds of a UTC civil time.
    static func epochMs(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Int64 {
        let days = days(year: year, month: month, day: day)
        return Int64(((days * 24 + hour) * 60 + minute) * 60 + second) * 1000
    }
}
