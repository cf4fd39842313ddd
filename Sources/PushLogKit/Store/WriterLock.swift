import Foundation

/// One writer at a time: ingest, prune and demo hold an exclusive flock on `DB.lock` for their
/// whole run, so a second ingest waits for the first instead of interleaving with it. (A separate
/// file: closing any descriptor of the database itself would drop SQLite's own fcntl locks.)
public final class WriterLock {
    let fd: Int32

    /// Takes the lock; calls `waiting` once if another process holds it, then blocks (or throws when `wait` is false).
    public init(databasePath: String, wait: Bool = true, waiting: () -> Void = {}) throws {
        let path = databasePath + ".lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0 { throw StoreError.cannotOpenLock(path: path, reason: String(cString: strerror(errno))) }
        if !WriterLock.lockSoon(fd) {
            guard wait else {
                close(fd)
                throw StoreError.busy(databasePath: databasePath)
            }
            waiting()
            while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        }
    }

    /// Takes the exclusive lock, trying for up to 50 ms: a report holds a shared lock for the
    /// instant its two read transactions begin (`whileNoWriter`), and a writer that met it would
    /// otherwise say "busy" or "waiting" for no running writer.
    static func lockSoon(_ fd: Int32) -> Bool {
        for _ in 0..<10 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            usleep(5_000)
        }
        return flock(fd, LOCK_EX | LOCK_NB) == 0
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

extension WriterLock {
    /// Runs `body` while no pushlog writer can commit: under a shared flock on `DB.lock`, taken
    /// without waiting (the CLI's writers hold the lock from before they open the database until
    /// they close it; a program that writes through PushLogKit must take a WriterLock too). Nil,
    /// and `body` not run, when a writer holds the lock or the lock file cannot be opened (a
    /// database no pushlog writer has touched, a directory it cannot read).
    static func whileNoWriter<T>(databasePath: String, _ body: () throws -> T) rethrows -> T? {
        let fd = open(databasePath + ".lock", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return nil }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
