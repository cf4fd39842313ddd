import Foundation

/// Opens pushlog databases: writable (created 0600, WAL, migrated) or read-only.
public enum Store {
    /// The writer's page cache in KiB (negative PRAGMA cache_size): it sets most of the peak memory.
    static let writerCacheKiB = 32768

    /// Opens or creates the database for ingest/prune. `migrating` is told the version of an
    /// older database before it is migrated (the caller says so: it takes a while on a large one).
    public static func openForWriting(path: String, migrating: ((Int64) -> Void)? = nil) throws -> Database {
        if !FileManager.default.fileExists(atPath: path) {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 && errno != EEXIST {
                throw StoreError.cannotCreate(path: path, reason: String(cString: strerror(errno)))
            }
            if fd >= 0 { close(fd) }
        }
        let db = try Database(path: path, readOnly: false)
        try refuseForeign(db, path: path)
        try db.exec("PRAGMA journal_mode=WAL")
        try db.exec("PRAGMA synchronous=NORMAL")
        try db.exec("PRAGMA cache_size=-\(writerCacheKiB)")
        // Index builds and GROUP BYs sort through temporary files, not RAM: memory stays flat
        // whatever the input size.
        try db.exec("PRAGMA temp_store=FILE")
        // Functions first: the migration of an older database uses them.
        try Functions.register(db)
        if let migrating, let v = try db.scalarInt("PRAGMA user_version"), v > 0 && v < Schema.version { migrating(v) }
        try Schema.migrate(db)
        return db
    }

    /// Opens an existing database read-only, with the SQL functions reports use. A database whose
    /// first load has not finished is refused unless `unfinished` (listing sources, ad-hoc SQL):
    /// its registrations and receipts are not in their tables yet.
    public static func openForReading(path: String, unfinished: Bool = false, immutable: Bool = false) throws -> Database {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError.missingDatabase(path: path)
        }
        var db = try Database(path: path, readOnly: true, immutable: immutable)
        do {
            try db.exec("PRAGMA cache_size=-32768")
        } catch StoreError.sqlite(let code, _, _) where !immutable && [SQLITE_READONLY_CODE, SQLITE_CANTOPEN_CODE].contains(code & 0xff) {
            // A folder the user cannot write (a shared copy) cannot hold the WAL index a reader
            // of a WAL database creates. With no log to read, the file alone is the database.
            let wal = Ingester.fileInfo(path + "-wal")
            guard wal == nil || wal?.size == 0 else {
                throw StoreError.unreadableLog(path: path)
            }
            db = try Database(path: path, readOnly: true, immutable: true)
            try db.exec("PRAGMA cache_size=-32768")
        }
        try db.exec("PRAGMA temp_store=FILE")
        try refuseForeign(db, path: path)
        let v = try db.scalarInt("PRAGMA user_version") ?? 0
        if v > Schema.version {
            throw StoreError.schemaNewer(found: v, supported: Schema.version)
        }
        if v < Schema.version, try !SchemaMigration.readAsCurrent(db, version: v) {
            throw StoreError.schemaMismatch(path: path, found: v, expected: Schema.version)
        }
        // Records whose derived facts are not built yet (a bulk load running or killed, a refresh
        // that failed) would give figures that disagree with each other: refuse, saying what to run.
        if !unfinished, try ClusteredTable.unfinished(db) || (db.scalarInt("SELECT value FROM meta WHERE key = 'derived_stale'") ?? 0) != 0
        {
            throw StoreError.unfinishedIngest(path: path)
        }
        try Functions.register(db)
        return db
    }

    /// SQLITE_READONLY and SQLITE_CANTOPEN: what a reader meets where it cannot create the WAL index.
    static let SQLITE_READONLY_CODE: Int32 = 8
    static let SQLITE_CANTOPEN_CODE: Int32 = 14

    /// Refuses a SQLite file that holds tables but is not a pushlog database (no pushlog schema
    /// version, or no `sources` table): pushlog never adds its schema next to someone else's.
    static func refuseForeign(_ db: Database, path: String) throws {
        let tables = try db.strings("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        guard !tables.isEmpty else { return }
        let version = try db.scalarInt("PRAGMA user_version") ?? 0
        if version == 0 || !tables.contains("sources") {
            throw StoreError.notPushlog(path: path, tables: tables)
        }
    }
}
