import CSQLite
import Foundation

/// One SQLite connection. Not shared between threads.
public final class Database {
    let handle: OpaquePointer
    let path: String
    let readOnly: Bool
    let immutable: Bool
    /// A second read-only connection on this one's snapshot, while `readSnapshot(lanes: true)` runs.
    var companion: Database?
    /// Runs between the starts of the two snapshots of `readSnapshot(lanes: true)`, where a commit
    /// can fall: the tests commit there to show that the two lanes still read one state.
    var betweenSnapshots: (() -> Void)?
    /// True while a run's whole work is one transaction (`beginRun`): units inside it are
    /// savepoints, so what they write is committed with everything else or not at all.
    private(set) var inRun = false

    /// Process-wide SQLite settings, applied once before the first connection opens.
    static let configured: Bool = { pushlog_config_no_memstatus() == SQLITE_OK }()

    /// Opens `path`; read-only connections cannot write, ATTACH new files or load extensions.
    /// `immutable`: read the file as it is, without the WAL index a read-only folder cannot hold
    /// (only when no write-ahead log is there to read).
    init(path: String, readOnly: Bool, busyTimeoutMs: Int32 = 10_000, immutable: Bool = false) throws {
        _ = Database.configured
        var db: OpaquePointer?
        let flags =
            readOnly
            ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let encoded = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? absolute
        let name = immutable ? "file://\(encoded)?immutable=1" : readOnly ? "file://\(encoded)" : path
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            if rc & 0xFF == SQLITE_CANTOPEN, let why = Database.deniedAccess(path, readOnly: readOnly) {
                throw StoreError.permissionDenied(path: path, why: why)
            }
            throw StoreError.sqlite(code: rc, message: "\(path): \(msg)", sql: nil)
        }
        handle = db
        self.path = path
        self.readOnly = readOnly
        self.immutable = immutable
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMs)
        _ = pushlog_db_config_defensive(db)
        if readOnly { installReadOnlyGuard() }
    }

    deinit { sqlite3_close_v2(handle) }

    /// Why this user may not open `path` as asked, when permissions are the reason SQLite could
    /// not ("unable to open database file" says nothing of them): the file's mode and owner.
    static func deniedAccess(_ path: String, readOnly: Bool) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let folder = (path as NSString).deletingLastPathComponent
            return access(folder.isEmpty ? "." : folder, W_OK | X_OK) != 0 && errno == EACCES
                ? "this user cannot create files in \(folder.isEmpty ? "." : folder)" : nil
        }
        guard access(path, readOnly ? R_OK : R_OK | W_OK) != 0 && errno == EACCES else { return nil }
        let owner = getpwuid(st.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(st.st_uid)"
        let mode = String(st.st_mode & 0o777, radix: 8)
        return "it is mode 0\(mode), owned by \(owner), and this user may not \(readOnly ? "read" : "write") it; "
            + "run pushlog as \(owner), or have \(owner) give this user access"
    }

    /// Runs pushlog's own SQL that writes only the connection's temporary tables (a report's
    /// materialized CTEs) past the read-only guard, which is back on when `body` returns. The
    /// file stays opened read-only: nothing can reach it.
    func withoutReadOnlyGuard<T>(_ body: () throws -> T) throws -> T {
        guard readOnly else { return try body() }
        sqlite3_set_authorizer(handle, nil, nil)
        defer { installReadOnlyGuard() }
        return try body()
    }

    /// Makes the statement running when `stop` is requested fail with SQLITE_INTERRUPT (checked
    /// every few thousand steps); nil removes the check. `stop` must outlive the check.
    func interruptWhen(_ stop: StopRequest?) {
        guard let stop else { sqlite3_progress_handler(handle, 0, nil, nil); return }
        sqlite3_progress_handler(
            handle, 4096, { context in Unmanaged<StopRequest>.fromOpaque(context!).takeUnretainedValue().requested ? 1 : 0 },
            Unmanaged.passUnretained(stop).toOpaque())
    }

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

    // MARK: transactions

    /// Begins a unit of writing: a transaction, or a savepoint inside a run's transaction.
    func beginUnit() throws { try exec(inRun ? "SAVEPOINT unit" : "BEGIN IMMEDIATE") }

    /// Ends a unit: commits it, or inside a run, keeps it for the run's commit.
    func commitUnit() throws { try exec(inRun ? "RELEASE unit" : "COMMIT") }

    /// Undoes the open unit (and only it); quiet when none is open.
    func rollbackUnit() { try? exec(inRun ? "ROLLBACK TO unit; RELEASE unit" : "ROLLBACK") }

    /// Makes everything until `endRun` one transaction.
    func beginRun() throws {
        try exec("BEGIN IMMEDIATE")
        inRun = true
    }

    /// Commits (or rolls back) the run's transaction.
    func endRun(commit: Bool) throws {
        guard inRun else { return }
        if commit {
            // A commit that fails (disk full) leaves the run open for the rollback that follows.
            try exec("COMMIT")
        } else {
            try? exec("ROLLBACK")
        }
        inRun = false
    }

    /// The first column of every row, as text.
    func strings(_ sql: String) throws -> [String] {
        let s = try prepare(sql)
        var out: [String] = []
        while try s.step() { out.append(s.string(0) ?? "") }
        return out
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
        sqlite3_set_authorizer(
            handle,
            { _, action, arg1, name, _, _ in
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
