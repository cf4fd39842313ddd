import CSQLite
import Foundation

/// The SQL function that reads the CLI's TIME forms, for ad-hoc queries and reports.
enum TimeFunctions {
    /// Registers `time_ms(TIME)`: the same forms as `--since` (`'2026-11-12'`, `'2026-W45'`,
    /// `'-2h'`, `'yesterday'`) to epoch milliseconds; NULL when it cannot be read. Not
    /// deterministic: relative forms count back from now.
    static func register(_ db: Database) throws {
        try db.check(
            sqlite3_create_function_v2(
                db.handle, "time_ms", 1, SQLITE_UTF8, nil,
                { ctx, _, argv in
                    guard let argv else { sqlite3_result_null(ctx); return }
                    switch sqlite3_value_type(argv[0]) {
                    case SQLITE_INTEGER, SQLITE_FLOAT:
                        // Numbers follow the epoch rule of --since: seconds, milliseconds or microseconds.
                        let v = sqlite3_value_double(argv[0])
                        if let t = TimeArgument.parse(String(format: "%.0f", v)) {
                            sqlite3_result_int64(ctx, t)
                        } else {
                            sqlite3_result_null(ctx)
                        }
                    case SQLITE_TEXT:
                        let s = String(cString: sqlite3_value_text(argv[0]))
                        if let t = TimeArgument.parse(s) { sqlite3_result_int64(ctx, t) } else { sqlite3_result_null(ctx) }
                    default:
                        sqlite3_result_null(ctx)
                    }
                }, nil, nil, nil))
    }
}
