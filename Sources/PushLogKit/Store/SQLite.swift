import CSQLite
import Foundation

/// One SQLite connection. Not shared between threads.
public final class Database {
    let handle: OpaquePointer
    let path: String
    let readOnly: Bool

    /// Process-wide SQLite settings, applied once before the first connection opens.
    static let configured: Bool = { pushlog_config_no_memstatus() == SQLITE_OK }()

    /// Opens `path`; read-only connections cannot write, ATTACH new files or load extensions.
    init(path: String, readOnly: Bool, busyTimeoutMs: Int32 = 10_000) throws {
        _ = Database.configured
        var db: OpaquePointer?
        let flags = readOnly
            ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw StoreError.sqlite(code: rc, message: "\(path): \(msg)", sql: nil)
        }
        handle = db
        self.path = path
        self.readOnly = readOnly
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMs)
        _ = pushlog_db_config_defensive(db)
        if readOnly { installReadOnlyGuard() }
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one or more statements that return no rows.
    func exec(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let msg = err.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(err)
            throw StoreError.sqlite(code: rc, message: msg, sql: sql)
        }
    }

    /// Compiles one statement.
    public func prepare(_ sql: String) throws -> Statement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw StoreError.sqlite(code: rc, message: lastMessage, sql: sql) }
        return Statement(stmt, db: self)
    }

    /// Compiles every statement of `sql`, in order (a user's `query` may hold several).
    public func prepareEach(_ sql: String) throws -> [Statement] {
        var out: [Statement] = []
        var text = Array(sql.utf8CString)
        try text.withUnsafeMutableBufferPointer { buf in
            var start = UnsafePointer(buf.baseAddress!)
            let end = UnsafePointer(buf.baseAddress!) + buf.count - 1
            while start < end {
                var stmt: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v2(handle, start, Int32(end - start), &stmt, &tail)
                guard rc == SQLITE_OK else {
                    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: end - start), as: UTF8.self)
                    throw StoreError.sqlite(code: rc, message: lastMessage, sql: text)
                }
                if let stmt { out.append(Statement(stmt, db: self)) }  // nil for a comment or blank tail
                guard let tail, tail > start else { break }
                start = tail
            }
        }
        return out
    }

    /// The rowid of the last insert on this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func check(_ rc: Int32) throws {
        if rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW {
            throw StoreError.sqlite(code: rc, message: lastMessage, sql: nil)
        }
    }

    /// First column of the first row, as an integer.
    func scalarInt(_ sql: String) throws -> Int64? {
        let s = try prepare(sql)
        return try s.step() ? s.int(0) : nil
    }

    // MARK: read-only guard

    /// Pragmas a read-only user query may run (also as `pragma_NAME(...)` table functions).
    static let readOnlyPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
        "foreign_key_list", "function_list", "pragma_list", "collation_list", "compile_options",
        "user_version", "schema_version", "data_version", "page_count", "page_size", "freelist_count",
        "database_list", "encoding",
    ]
    static let tuningPragmas: Set<String> = ["cache_size", "temp_store", "busy_timeout"]

    private func installReadOnlyGuard() {
        sqlite3_set_authorizer(handle, { _, action, arg1, name, _, _ in
            switch action {
            case SQLITE_SELECT, SQLITE_READ, SQLITE_RECURSIVE: return SQLITE_OK
            case SQLITE_FUNCTION:
                guard let name else { return SQLITE_OK }
                return strcasecmp(name, "load_extension") == 0 ? SQLITE_DENY : SQLITE_OK
            case SQLITE_UPDATE:
                // Table-valued functions (json_each, pragma_table_info) are eponymous virtual tables
                // whose constructor is checked as an update of sqlite_master; the file is opened
                // read-only, so no write can happen through it.
                guard let arg1 else { return SQLITE_DENY }
                return strcmp(arg1, "sqlite_master") == 0 ? SQLITE_OK : SQLITE_DENY
            case SQLITE_PRAGMA:
                // Only pragmas that read the schema or settings, and the connection-local tuning
                // pushlog itself sets on a reading connection.
                guard let arg1 else { return SQLITE_DENY }  // arg1: the pragma's name
                let n = String(cString: arg1).lowercased()
                return Database.readOnlyPragmas.contains(n) || Database.tuningPragmas.contains(n) ? SQLITE_OK : SQLITE_DENY
            default: return SQLITE_DENY
            }
        }, nil)
    }
}

/// A prepared statement, reset and rebound for each use, finalized on deinit.
public final class Statement {
    let handle: OpaquePointer
    unowned let db: Database

    init(_ handle: OpaquePointer, db: Database) {
        self.handle = handle
        self.db = db
    }

    deinit { sqlite3_finalize(handle) }

    /// The first bind that failed since the last step, as (parameter, result code).
    private var bindFailure: (Int32, Int32)?

    @inline(__always) func checkBind(_ i: Int32, _ rc: Int32) {
        if rc != SQLITE_OK && bindFailure == nil { bindFailure = (i, rc) }
    }

    /// Throws the kept bind failure, if any, and forgets it.
    @inline(__always) func throwBindFailure() throws {
        guard let (i, rc) = bindFailure else { return }
        bindFailure = nil
        throw StoreError.bind(code: rc, parameter: i, sql: sql)
    }

    /// The statement's SQL text, for error messages.
    var sql: String { sqlite3_sql(handle).map { String(cString: $0) } ?? "" }

    // Every bind's result is checked: the first failure is kept and thrown by the next
    // `step`/`run`, so a statement never runs with a value silently missing (and the many
    // call sites on the hot path stay free of `try`).
    @inline(__always) public func bind(_ i: Int32, _ v: Int64) { checkBind(i, sqlite3_bind_int64(handle, i, v)) }
    @inline(__always) func bind(_ i: Int32, _ v: Double) { checkBind(i, sqlite3_bind_double(handle, i, v)) }
    @inline(__always) func bindNull(_ i: Int32) { checkBind(i, sqlite3_bind_null(handle, i)) }
    /// Binds text that must stay valid until the statement is stepped.
    @inline(__always) func bindStatic(_ i: Int32, _ p: UnsafePointer<UInt8>, _ n: Int) {
        checkBind(i, p.withMemoryRebound(to: CChar.self, capacity: n) { pushlog_bind_text_static(handle, i, $0, Int32(n)) })
    }
    /// Binds bytes as a blob (copied by SQLite).
    @inline(__always) func bindBlob(_ i: Int32, _ p: UnsafeRawPointer, _ n: Int) {
        checkBind(i, pushlog_bind_blob_transient(handle, i, p, Int32(n)))
    }
    /// Binds a Swift string (copied by SQLite).
    public func bind(_ i: Int32, _ text: String?) {
        guard var s = text else { bindNull(i); return }
        let rc = s.withUTF8 { buf in
            buf.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buf.count) {
                pushlog_bind_text_transient(handle, i, $0, Int32(buf.count))
            }
        }
        checkBind(i, rc)
    }
    func bindInt(_ i: Int32, _ v: Int64?) { if let v { bind(i, v) } else { bindNull(i) } }

    /// Binds by parameter name (`:since`); unknown names are ignored.
    func index(of name: String) -> Int32 { sqlite3_bind_parameter_index(handle, name) }
    var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }
    func parameterName(_ i: Int32) -> String? { sqlite3_bind_parameter_name(handle, i).map { String(cString: $0) } }

    /// Steps once; true when a row is available.
    @discardableResult
    public func step() throws -> Bool {
        try throwBindFailure()
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw StoreError.sqlite(code: rc, message: db.lastMessage, sql: sql)
    }

    /// Runs to completion and resets, keeping the bindings.
    @inline(__always) func run() throws {
        try throwBindFailure()
        let rc = sqlite3_step(handle)
        sqlite3_reset(handle)
        if rc != SQLITE_DONE && rc != SQLITE_ROW { throw StoreError.sqlite(code: rc, message: db.lastMessage, sql: sql) }
    }

    public func reset() { sqlite3_reset(handle); sqlite3_clear_bindings(handle); bindFailure = nil }

    var columnCount: Int32 { sqlite3_column_count(handle) }
    func columnName(_ i: Int32) -> String { String(cString: sqlite3_column_name(handle, i)) }
    func isNull(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_NULL }
    public func int(_ i: Int32) -> Int64 { sqlite3_column_int64(handle, i) }
    func double(_ i: Int32) -> Double { sqlite3_column_double(handle, i) }
    /// The column's text bytes, valid until the next step (empty for NULL).
    func bytes(_ i: Int32) -> UnsafeBufferPointer<UInt8> {
        guard let p = sqlite3_column_text(handle, i) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, i)))
    }
    public func string(_ i: Int32) -> String? {
        guard let p = sqlite3_column_text(handle, i) else { return nil }
        return String(cString: p)
    }
    /// The column as a typed value.
    func value(_ i: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: return .int(int(i))
        case SQLITE_FLOAT: return .double(double(i))
        case SQLITE_NULL: return .null
        // A stored apns-id key reads as its UUID text (ApnsIDKey).
        case SQLITE_BLOB:
            let n = Int(sqlite3_column_bytes(handle, i))
            let p = sqlite3_column_blob(handle, i)?.assumingMemoryBound(to: UInt8.self)
            return .text(ApnsIDKey.text(UnsafeBufferPointer(start: p, count: n)))
        default: return .text(string(i) ?? "")
        }
    }
}

/// A value read from a result row.
public enum SQLValue: Equatable {
    case null, int(Int64), double(Double), text(String)

    var asDouble: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        case .text(let s): return Double(s)
        case .null: return nil
        }
    }
}
