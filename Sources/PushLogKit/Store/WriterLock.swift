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
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard wait else {
                close(fd)
                throw StoreError.busy(databasePath: databasePath)
            }
            waiting()
            while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
