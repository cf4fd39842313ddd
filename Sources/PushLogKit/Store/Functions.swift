import CSQLite
import Foundation

/// The SQL functions reports and ad-hoc queries use and SQLite lacks, registered on every
/// connection Store opens: these here, `--by` (BucketFunctions) and `time_ms` (TimeFunctions).
enum Functions {
    typealias Scalar = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

    /// Registers a deterministic scalar function of `arguments` arguments.
    static func define(_ db: Database, _ name: String, _ arguments: Int32, _ body: Scalar) throws {
        try db.check(sqlite3_create_function_v2(db.handle, name, arguments, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, body, nil, nil, nil))
    }

    /// Sets a function's result to `text` (copied by SQLite).
    static func resultText(_ ctx: OpaquePointer?, _ text: String) {
        _ = text.withCString { pushlog_result_text_transient(ctx, $0, -1) }
    }

    static func register(_ db: Database) throws {
        try BucketFunctions.register(db)
        try TimeFunctions.register(db)
        // apns_key(text) -> the stored form of an apns-id (ApnsIDKey): a blob for a UUID, else the text.
        try define(db, "apns_key", 1) { ctx, _, argv in
            guard let argv, sqlite3_value_type(argv[0]) == SQLITE_TEXT, let p = sqlite3_value_text(argv[0]) else {
                if let argv { sqlite3_result_value(ctx, argv[0]) } else { sqlite3_result_null(ctx) }
                return
            }
            let text = UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(argv[0])))
            var key: (UInt64, UInt64) = (0, 0)
            if let n = ApnsIDKey.encode(text, into: &key) {
                _ = withUnsafeBytes(of: &key) { pushlog_result_blob_transient(ctx, $0.baseAddress!, Int32(n)) }
            } else {
                sqlite3_result_value(ctx, argv[0])
            }
        }
        // apns_text(key) -> the apns-id as logged (inverse of apns_key).
        try define(db, "apns_text", 1) { ctx, _, argv in
            guard let argv, sqlite3_value_type(argv[0]) == SQLITE_BLOB else {
                if let argv { sqlite3_result_value(ctx, argv[0]) } else { sqlite3_result_null(ctx) }
                return
            }
            let p = sqlite3_value_blob(argv[0])?.assumingMemoryBound(to: UInt8.self)
            let s = ApnsIDKey.text(UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(argv[0]))))
            Functions.resultText(ctx, s)
        }
        // iso_week(ms) -> '2026-W45'
        try define(db, "iso_week", 1) { ctx, _, argv in
            guard let argv, sqlite3_value_type(argv[0]) != SQLITE_NULL else { sqlite3_result_null(ctx); return }
            guard let ms = Functions.epochMs(ctx, argv[0], "iso_week") else { return }
            let s = TimeFormat.isoWeek(ms: ms)
            Functions.resultText(ctx, s)
        }
        // iso_week_start(ms) -> ms of that week's Monday 00:00 UTC
        try define(db, "iso_week_start", 1) { ctx, _, argv in
            guard let argv, sqlite3_value_type(argv[0]) != SQLITE_NULL else { sqlite3_result_null(ctx); return }
            guard let ms = Functions.epochMs(ctx, argv[0], "iso_week_start") else { return }
            sqlite3_result_int64(ctx, TimeFormat.weekStart(ms: ms))
        }
        // bucket(ms, 'minute'|'5m'|'hour'|'day'|'week') -> label
        try define(db, "bucket", 2) { ctx, _, argv in
            guard let argv, sqlite3_value_type(argv[0]) != SQLITE_NULL, let u = sqlite3_value_text(argv[1]) else {
                sqlite3_result_null(ctx); return
            }
            let unit = String(cString: u)
            guard let ms = Functions.epochMs(ctx, argv[0], "bucket") else { return }
            guard TimeUnit(rawValue: unit) != nil else {
                sqlite3_result_error(ctx, "bucket(): unknown unit '\(unit)'; use minute, 5m, hour, day or week", -1)
                return
            }
            Functions.resultText(ctx, TimeFormat.bucket(ms: ms, by: unit))
        }
        // bucket_start(ms, unit) -> ms at the start of the bucket (cheap per row; label groups with bucket())
        try define(db, "bucket_start", 2) { ctx, _, argv in
            guard let argv, sqlite3_value_type(argv[0]) != SQLITE_NULL, let u = sqlite3_value_text(argv[1]) else {
                sqlite3_result_null(ctx); return
            }
            guard let ms = Functions.epochMs(ctx, argv[0], "bucket_start") else { return }
            let step: Int64
            // By first byte and length: per row, cheaper than comparing the words.
            switch (u[0], sqlite3_value_bytes(argv[1])) {
            case (0x6D, 6): step = 60_000  // minute
            case (0x35, 2): step = 300_000  // 5m
            case (0x68, 4): step = 3_600_000  // hour
            case (0x77, 4): sqlite3_result_int64(ctx, TimeFormat.weekStart(ms: ms)); return  // week
            case (0x64, 3): step = 86_400_000  // day
            default:
                sqlite3_result_error(ctx, "bucket_start(): unknown unit '\(String(cString: u))'; use minute, 5m, hour, day or week", -1)
                return
            }
            sqlite3_result_int64(ctx, TimeFormat.floorDiv(ms, step) * step)
        }
        // whole_hours_start(since, until) / whole_hours_end(since, until): the whole UTC hours of
        // [since, until) are [start, end); start = end when there are none. A report reads those
        // hours from a derived hourly table and [since, start) and [end, until) from the records.
        try define(db, "whole_hours_start", 2) { ctx, _, argv in
            guard let argv, let range = Functions.wholeHours(argv) else { sqlite3_result_null(ctx); return }
            sqlite3_result_int64(ctx, range.start)
        }
        try define(db, "whole_hours_end", 2) { ctx, _, argv in
            guard let argv, let range = Functions.wholeHours(argv) else { sqlite3_result_null(ctx); return }
            sqlite3_result_int64(ctx, range.end)
        }
        // pushlog_round(x, n): SQLite's own round(), under the name of ClickHouse's function that
        // rounds alike, so a report written once rounds the same on both engines. SQLite reads the
        // rounded digits back its own way (not always to the nearest double), so the function asks
        // round() itself, through a statement kept while `n` stays the same (a constant, usually).
        try define(db, "pushlog_round", 2) { ctx, _, argv in
            guard let argv, sqlite3_value_type(argv[0]) != SQLITE_NULL, sqlite3_value_type(argv[1]) != SQLITE_NULL else {
                sqlite3_result_null(ctx)
                return
            }
            var statement = sqlite3_get_auxdata(ctx, 1).map { OpaquePointer($0) }
            if statement == nil {
                var made: OpaquePointer?
                guard sqlite3_prepare_v2(sqlite3_context_db_handle(ctx), "SELECT round(?1, ?2)", -1, &made, nil) == SQLITE_OK, let made
                else {
                    sqlite3_result_error(ctx, "pushlog_round: cannot prepare round()", -1)
                    return
                }
                statement = made
                sqlite3_set_auxdata(ctx, 1, UnsafeMutableRawPointer(made)) { sqlite3_finalize(OpaquePointer($0)) }
            }
            guard let statement else { return }
            sqlite3_bind_value(statement, 1, argv[0])
            sqlite3_bind_value(statement, 2, argv[1])
            if sqlite3_step(statement) == SQLITE_ROW {
                sqlite3_result_value(ctx, sqlite3_column_value(statement, 0))
            } else {
                sqlite3_result_error(ctx, "pushlog_round: round() failed", -1)
            }
            sqlite3_reset(statement)
        }
        // rfc3339(ms) -> '2026-11-02T14:00:00.000Z'
        try define(db, "rfc3339", 1) { ctx, _, argv in
            guard let argv, sqlite3_value_type(argv[0]) != SQLITE_NULL else { sqlite3_result_null(ctx); return }
            guard let ms = Functions.epochMs(ctx, argv[0], "rfc3339") else { return }
            let s = TimeFormat.rfc3339(ms: ms)
            Functions.resultText(ctx, s)
        }
        // median(x): aggregate, mean of the two middle values for an even count.
        try db.check(
            sqlite3_create_function_v2(
                db.handle, "median", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, nil,
                { ctx, _, argv in
                    guard let argv, sqlite3_value_type(argv[0]) != SQLITE_NULL else { return }
                    Functions.medianBox(ctx).values.append(sqlite3_value_double(argv[0]))
                }, Functions.medianResult, nil))
        // median_list(list, divisor): aggregate, the median of every integer in comma-separated
        // lists (background_hourly.lags), each divided by divisor first, as median(v / divisor)
        // over the values one by one would give it.
        try db.check(
            sqlite3_create_function_v2(
                db.handle, "median_list", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, nil,
                { ctx, _, argv in
                    guard let argv, sqlite3_value_type(argv[0]) != SQLITE_NULL, let p = sqlite3_value_text(argv[0]) else { return }
                    let divisor = sqlite3_value_double(argv[1])
                    let box = Functions.medianBox(ctx)
                    Functions.integers(UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(argv[0])))) {
                        box.values.append(Double($0) / divisor)
                    }
                }, Functions.medianResult, nil))
    }

    /// The whole UTC hours of [since, until) (arguments 0 and 1, integers) as [start, end):
    /// start is the first hour boundary at or after since (until when that is later), end the
    /// last boundary at or before until (start when that is earlier). Nil for a NULL argument.
    static func wholeHours(_ argv: UnsafeMutablePointer<OpaquePointer?>) -> (start: Int64, end: Int64)? {
        guard sqlite3_value_type(argv[0]) != SQLITE_NULL, sqlite3_value_type(argv[1]) != SQLITE_NULL else { return nil }
        let since = sqlite3_value_int64(argv[0])
        let until = sqlite3_value_int64(argv[1])
        let hour: Int64 = 3_600_000
        let floor = TimeFormat.floorDiv(since, hour) * hour
        let ceiling = floor < since && floor <= Int64.max - hour ? floor + hour : floor
        let start = min(max(ceiling, since), until)
        return (start, max(TimeFormat.floorDiv(until, hour) * hour, start))
    }

    /// The argument as epoch milliseconds: an integer, or text or a real that is one. Anything
    /// else ('2026-11-10', a bucket label) sets an error naming the function and returns nil:
    /// read as a number it would be a date in 1970.
    static func epochMs(_ ctx: OpaquePointer?, _ v: OpaquePointer?, _ function: String) -> Int64? {
        switch sqlite3_value_type(v) {
        case SQLITE_INTEGER: return sqlite3_value_int64(v)
        case SQLITE_FLOAT:
            let d = sqlite3_value_double(v)
            if d.rounded() == d, abs(d) < 9e18 { return Int64(d) }
        default:
            if let p = sqlite3_value_text(v), let n = Int64(String(cString: p)) { return n }
        }
        let shown = sqlite3_value_text(v).map { String(cString: $0) } ?? "a blob"
        sqlite3_result_error(
            ctx, "\(function)(): '\(shown.prefix(40))' is not a time in epoch milliseconds (use a column such as time_ms)", -1)
        return nil
    }

    final class MedianBox { var values: [Double] = [] }

    /// The values an aggregate median collects, kept in its aggregate context.
    static func medianBox(_ ctx: OpaquePointer?) -> MedianBox {
        let slot = sqlite3_aggregate_context(ctx, Int32(MemoryLayout<UnsafeMutableRawPointer?>.size))!
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        if slot.pointee == nil { slot.pointee = Unmanaged.passRetained(MedianBox()).toOpaque() }
        return Unmanaged<MedianBox>.fromOpaque(slot.pointee!).takeUnretainedValue()
    }

    /// The final step of both medians: NULL when no value came.
    static let medianResult: @convention(c) (OpaquePointer?) -> Void = { ctx in
        let slot = sqlite3_aggregate_context(ctx, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        guard let slot, let raw = slot.pointee else { sqlite3_result_null(ctx); return }
        let box = Unmanaged<MedianBox>.fromOpaque(raw).takeRetainedValue()
        slot.pointee = nil
        if let m = Stats.median(box.values) { sqlite3_result_double(ctx, m) } else { sqlite3_result_null(ctx) }
    }

    /// Calls `body` with each integer of a comma-separated list (an optional minus sign, digits).
    static func integers(_ text: UnsafeBufferPointer<UInt8>, _ body: (Int64) -> Void) {
        var value: Int64 = 0, negative = false, digits = false
        for c in text {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = value &* 10 &+ Int64(c &- UInt8(ascii: "0"))
                digits = true
            case UInt8(ascii: "-"):
                negative = true
            default:  // the comma
                if digits { body(negative ? -value : value) }
                value = 0; negative = false; digits = false
            }
        }
        if digits { body(negative ? -value : value) }
    }
}

/// Small statistics helpers shared by SQL functions and Swift code.
enum Stats {
    /// Median; the mean of the two middle values for an even count.
    static func median(_ v: [Double]) -> Double? {
        guard !v.isEmpty else { return nil }
        let s = v.sorted()
        let m = s.count / 2
        return s.count % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2
    }
}
