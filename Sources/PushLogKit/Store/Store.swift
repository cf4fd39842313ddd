import Foundation

/// Opens pushlog databases: writable (created 0600, WAL, migrated) or read-only.
public enum Store {
    /// The writer's page cache in KiB (negative PRAGMA cache_size): it sets most of the peak memory.
    public static let writerCacheKiB = 32768

    /// Opens or creates the database for ingest/prune.
    public static func openForWriting(path: String) throws -> Database {
        if !FileManager.default.fileExists(atPath: path) {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 && errno != EEXIST {
                throw SQLiteError(code: 14, message: "cannot create database \(path): \(String(cString: strerror(errno)))")
            }
            if fd >= 0 { close(fd) }
        }
        let db = try Database(path: path, readOnly: false)
        try db.exec("PRAGMA journal_mode=WAL")
        try db.exec("PRAGMA synchronous=NORMAL")
        try db.exec("PRAGMA cache_size=-\(writerCacheKiB)")
        // Index builds and GROUP BYs sort through temporary files, not RAM: memory stays flat
        // whatever the input size.
        try db.exec("PRAGMA temp_store=FILE")
        try Schema.migrate(db)
        try Functions.register(db)
        return db
    }

    /// Opens an existing database read-only, with the SQL functions reports use.
    public static func openForReading(path: String) throws -> Database {
        guard FileManager.default.fileExists(atPath: path) else {
            throw SQLiteError(code: 14, message: "no database at \(path) (run `pushlog ingest PATH...` first, or pass --db FILE)")
        }
        let db = try Database(path: path, readOnly: true)
        try db.exec("PRAGMA cache_size=-32768")
        try db.exec("PRAGMA temp_store=FILE")
        let v = try db.scalarInt("PRAGMA user_version") ?? 0
        if v != Schema.version {
            throw SQLiteError(code: 1, message: "\(path) has schema version \(v), expected \(Schema.version): run `pushlog ingest` to migrate it")
        }
        try Functions.register(db)
        return db
    }
}
