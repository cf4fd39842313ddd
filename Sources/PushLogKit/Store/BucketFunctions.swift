import CSQLite
import Foundation

/// `--by` as SQL: a report groups by
/// `by_key(:by, time_ms, topic_id, env_id, push_type_id, reason_id, app_version_id)` and labels
/// the group with `by_label(key, :by)`. For a time unit the key is the bucket's start (epoch ms,
/// so groups sort in time order) and the label `bucket(start, unit)`; for a dimension (topic,
/// env, app_version, push_type, reason) both are the value's name, `(none)` when absent
/// (`(unknown)` for an app version, as env-mismatch's by_app_version says).
enum BucketFunctions {
    /// The argument of by_key holding the dimension `by` names, or nil for a time unit. Compared
    /// as C strings: by_key runs once per row, and a Swift String per call costs more than the rest.
    static func dimensionArgument(_ by: UnsafePointer<UInt8>) -> Int? {
        let c = UnsafeRawPointer(by).assumingMemoryBound(to: CChar.self)
        switch by[0] {
        case UInt8(ascii: "t"): return strcmp(c, "topic") == 0 ? 2 : nil
        case UInt8(ascii: "e"): return strcmp(c, "env") == 0 ? 3 : nil
        case UInt8(ascii: "p"): return strcmp(c, "push_type") == 0 ? 4 : nil
        case UInt8(ascii: "r"): return strcmp(c, "reason") == 0 ? 5 : nil
        case UInt8(ascii: "a"): return strcmp(c, "app_version") == 0 ? 6 : nil
        default: return nil
        }
    }

    /// The start of the time bucket of unit `by` (as `bucket_start`: minute, 5m, hour, week, else day).
    static func start(ms: Int64, by: UnsafePointer<UInt8>) -> Int64 {
        let step: Int64
        switch by[0] {
        case UInt8(ascii: "m"): step = 60_000
        case UInt8(ascii: "5"): step = 300_000
        case UInt8(ascii: "h"): step = 3_600_000
        case UInt8(ascii: "w"): return TimeFormat.weekStart(ms: ms)
        default: step = 86_400_000
        }
        return TimeFormat.floorDiv(ms, step) * step
    }

    /// The names of the dimension ids by_key meets, read from the dimension tables on first use
    /// (again when an id is new: `--watch` reruns over a growing database).
    final class Names {
        /// Unowned: the connection holds this object (the function's user data) until it closes.
        unowned let db: Database
        static let tables = [2: "topics", 3: "envs", 4: "push_types", 5: "reasons", 6: "app_versions"]
        var names: [Int: [Int64: String]] = [:]
        init(_ db: Database) { self.db = db }

        func name(argument i: Int, id: Int64) -> String? {
            if let n = names[i]?[id] { return n }
            guard let table = Names.tables[i], let s = try? db.prepare("SELECT id, name FROM \(table)") else { return nil }
            var m: [Int64: String] = [:]
            while (try? s.step()) == true { m[s.int(0)] = s.string(1) ?? "" }
            names[i] = m
            return m[id]
        }
    }

    static func register(_ db: Database) throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        let names = Unmanaged.passRetained(Names(db)).toOpaque()
        try db.check(
            sqlite3_create_function_v2(
                db.handle, "by_key", 7, flags, names,
                { ctx, _, argv in
                    guard let argv, let by = sqlite3_value_text(argv[0]) else { sqlite3_result_null(ctx); return }
                    if let i = BucketFunctions.dimensionArgument(by) {
                        // The hourly tables store an absent topic or env as 0.
                        let names = Unmanaged<Names>.fromOpaque(sqlite3_user_data(ctx)).takeUnretainedValue()
                        // A text argument is the value itself (errors: a transport failure's error text as its reason).
                        if sqlite3_value_type(argv[i]) == SQLITE_TEXT, let v = sqlite3_value_text(argv[i]), v[0] != 0 {
                            _ = pushlog_result_text_transient(ctx, UnsafeRawPointer(v).assumingMemoryBound(to: CChar.self), -1)
                        } else if sqlite3_value_type(argv[i]) == SQLITE_INTEGER,
                            let n = names.name(argument: i, id: sqlite3_value_int64(argv[i])), !n.isEmpty
                        {
                            _ = n.withCString { pushlog_result_text_transient(ctx, $0, -1) }
                        } else {
                            _ = (i == 6 ? "(unknown)" : "(none)").withCString { pushlog_result_text_transient(ctx, $0, -1) }
                        }
                        return
                    }
                    guard sqlite3_value_type(argv[1]) != SQLITE_NULL else { sqlite3_result_null(ctx); return }
                    sqlite3_result_int64(ctx, BucketFunctions.start(ms: sqlite3_value_int64(argv[1]), by: by))
                }, nil, nil, { p in if let p { Unmanaged<Names>.fromOpaque(p).release() } }))
        try db.check(
            sqlite3_create_function_v2(
                db.handle, "by_label", 2, flags, nil,
                { ctx, _, argv in
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
