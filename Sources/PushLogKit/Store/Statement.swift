import CSQLite
import Foundation

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
    /// The column's text, whole: a rejected line may hold NUL bytes, which a C string would end at.
    public func string(_ i: Int32) -> String? {
        guard let p = sqlite3_column_text(handle, i) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, i))), as: UTF8.self)
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
