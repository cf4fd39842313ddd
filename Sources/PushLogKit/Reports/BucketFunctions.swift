import CSQLite

/// `--by` as SQL: a report groups by `by_key(:by, t, topic, env, push_type, reason, app_version)`
/// and labels the group with `by_label(key, :by)`. For a time unit the key is the bucket's start
/// (epoch ms, so groups sort in time order) and the label `bucket(start, unit)`; for a dimension
/// (topic, env, app_version, push_type, reason) both are the value, `(none)` when absent
/// (`(unknown)` for an app version, as env-mismatch's by_app_version says).
public enum BucketFunctions {
    public static let dimensions: Set<String> = ["topic", "env", "app_version", "push_type", "reason"]

    static func dimensionValue(_ by: String, _ argv: UnsafeMutablePointer<OpaquePointer?>) -> String? {
        let index: Int
        switch by {
        case "topic": index = 2
        case "env": index = 3
        case "push_type": index = 4
        case "reason": index = 5
        case "app_version": index = 6
        default: return nil
        }
        // resp_hourly stores an absent topic or env as ''.
        guard let p = sqlite3_value_text(argv[index]), p[0] != 0 else { return by == "app_version" ? "(unknown)" : "(none)" }
        return String(cString: p)
    }

    /// The start of the time bucket holding `ms` (as `bucket_start`).
    static func start(ms: Int64, by: String) -> Int64 {
        let step: Int64
        switch by {
        case "minute": step = 60_000
        case "5m": step = 300_000
        case "hour": step = 3_600_000
        case "week": return TimeFormat.weekStart(ms: ms)
        default: step = 86_400_000
        }
        return TimeFormat.floorDiv(ms, step) * step
    }

    public static func register(_ db: Database) throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        try db.check(sqlite3_create_function_v2(db.handle, "by_key", 7, flags, nil, { ctx, _, argv in
            guard let argv, let u = sqlite3_value_text(argv[0]) else { sqlite3_result_null(ctx); return }
            let by = String(cString: u)
            if let v = BucketFunctions.dimensionValue(by, argv) {
                _ = v.withCString { pushlog_result_text_transient(ctx, $0, -1) }
                return
            }
            guard sqlite3_value_type(argv[1]) != SQLITE_NULL else { sqlite3_result_null(ctx); return }
            sqlite3_result_int64(ctx, BucketFunctions.start(ms: sqlite3_value_int64(argv[1]), by: by))
        }, nil, nil, nil))
        try db.check(sqlite3_create_function_v2(db.handle, "by_label", 2, flags, nil, { ctx, _, argv in
            guard let argv, let u = sqlite3_value_text(argv[1]), sqlite3_value_type(argv[0]) != SQLITE_NULL else {
                sqlite3_result_null(ctx); return
            }
            let s: String
            if sqlite3_value_type(argv[0]) == SQLITE_TEXT {
                s = String(cString: sqlite3_value_text(argv[0]))
            } else {
                s = TimeFormat.bucket(ms: sqlite3_value_int64(argv[0]), by: String(cString: u))
            }
            _ = s.withCString { pushlog_result_text_transient(ctx, $0, -1) }
        }, nil, nil, nil))
    }
}
