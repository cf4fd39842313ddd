import CSQLite
import Foundation

/// Every failure of the store layer: SQLite's own (with its extended result code and the SQL
/// that failed) and the ones around it (no database file, a schema from another version, the
/// writer lock), each its own case rather than a borrowed SQLite code.
public enum StoreError: Error, CustomStringConvertible {
    /// SQLite refused: its extended result code, its message and the statement, when there was one.
    case sqlite(code: Int32, message: String, sql: String?)
    /// A bind failed (index out of range, value too big); reported when the statement is stepped.
    case bind(code: Int32, parameter: Int32, sql: String)
    /// `openForReading` found no file at the path.
    case missingDatabase(path: String)
    /// The database file could not be created.
    case cannotCreate(path: String, reason: String)
    /// The database was written by another schema version than this pushlog reads.
    case schemaMismatch(path: String, found: Int64, expected: Int64)
    /// The database was migrated by a newer pushlog.
    case schemaNewer(found: Int64, supported: Int64)
    /// The database has a schema version no migration starts from.
    case schemaUnknown(found: Int64)
    /// The database file, or its folder, is not open to this user (`why` says which and how).
    case permissionDenied(path: String, why: String)
    /// The writer lock file (`DB.lock`) could not be opened.
    case cannotOpenLock(path: String, reason: String)
    /// Another ingest or prune holds the writer lock and the caller asked not to wait.
    case busy(databasePath: String)
    /// A load into the database has not finished (it is running, or stopped before finalizing):
    /// its registrations and receipts are still staged (ClusteredTable), so answers would miss them.
    case unfinishedIngest(path: String)
    /// A SQLite file with tables of its own and no pushlog schema.
    case notPushlog(path: String, tables: [String])
    /// A read-only place whose write-ahead log holds changes a reader cannot index there.
    case unreadableLog(path: String)

    /// What went wrong, in one sentence for a person (no result code, no SQL).
    public var message: String {
        switch self {
        case .sqlite(_, let message, _): return message
        case .bind(_, let parameter, _): return "cannot bind parameter \(parameter)"
        case .missingDatabase(let path): return "no database at \(path) (run `pushlog ingest PATH...` first, or pass --db FILE)"
        case .cannotCreate(let path, let reason): return "cannot create database \(path): \(reason)"
        case .schemaMismatch(let path, let found, let expected):
            return
                "\(path) has schema version \(found), expected \(expected): run `pushlog --db \(path) ingest DIR` once to migrate it (any folder will do, even an empty one)"
        case .schemaNewer(let found, let supported):
            return "database schema \(found) is newer than this pushlog (\(supported)); upgrade pushlog"
        case .schemaUnknown(let found):
            return "database schema \(found) is not one pushlog wrote; it cannot be migrated"
        case .permissionDenied(let path, let why): return "permission denied opening the database \(path): \(why)"
        case .cannotOpenLock(let path, let reason): return "cannot open lock file \(path): \(reason)"
        case .busy(let db): return "the database is busy: another pushlog ingest or prune is writing to \(db)"
        case .notPushlog(let path, let tables):
            let shown = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? " and \(tables.count - 5) more" : "")
            return
                "\(path) is not a pushlog database (it holds the tables \(shown), and no pushlog schema): pushlog does not touch it; pass --db with another file"
        case .unreadableLog(let path):
            return
                "\(path) is in a folder you cannot write, and its write-ahead log (\(path)-wal) holds changes not yet in the file: ask its owner to run `pushlog --db \(path) ingest DIR` or `sqlite3 \(path) 'PRAGMA wal_checkpoint(TRUNCATE)'`, or copy the three files somewhere you can write"
        case .unfinishedIngest(let path):
            return
                "an ingest into \(path) has not finished (it is still running, or it stopped early): wait for it, or run `pushlog --db \(path) ingest DIR` again to complete it"
        }
    }

    /// SQLite's extended result code, for the failures that came from SQLite.
    public var sqliteCode: Int32? {
        switch self {
        case .sqlite(let code, _, _), .bind(let code, _, _): return code
        default: return nil
        }
    }

    /// SQLite found the file damaged (SQLITE_CORRUPT and its extended codes) or not a database
    /// at all (SQLITE_NOTADB): no answer read from it can be trusted.
    public var isDamage: Bool {
        guard let code = sqliteCode else { return false }
        return code & 0xff == SQLITE_CORRUPT || code & 0xff == SQLITE_NOTADB
    }

    /// True when the database file failed (damaged, not a database, unreadable), whatever the
    /// statement that met it: the error is the database's, which names the file, not the SQL's.
    public var isFileFault: Bool {
        guard let code = sqliteCode else { return false }
        return [SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_IOERR, SQLITE_CANTOPEN].contains(code & 0xFF)
    }

    /// The statement that failed, when SQLite failed on one.
    public var sql: String? {
        switch self {
        case .sqlite(_, _, let sql): return sql
        case .bind(_, _, let sql): return sql
        default: return nil
        }
    }

    public var description: String {
        guard let code = sqliteCode else { return message }
        return "database error \(code): \(message)" + (sql.map { " (while running: \(StoreError.abbreviated($0)))" } ?? "")
    }

    /// The statement on one line, cut after 160 characters (schema scripts run to pages).
    public static func abbreviated(_ sql: String) -> String {
        let oneLine = sql.split(whereSeparator: { $0.isNewline }).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        return oneLine.count > 160 ? String(oneLine.prefix(160)) + "…" : oneLine
    }
}
