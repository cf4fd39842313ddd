import Foundation

/// Writes a file so that a reader never sees it half-written: the text goes to a temporary file
/// in the same directory, which is then renamed over the target (rename is atomic within one
/// file system). node_exporter's textfile collector reads `*.prom` files at any moment.
public enum AtomicFile {
    struct WriteError: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes `text` to `path` with the given permissions (`mode`), replacing it atomically.
    public static func write(_ text: String, to path: String, mode: mode_t = 0o600) throws {
        let dir = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        // A dot name: the textfile collector only reads `*.prom`, and `ls` hides it.
        let tmp = (dir.isEmpty ? "" : dir + "/") + ".\(base).tmp.\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw WriteError(description: "cannot write \(tmp): \(String(cString: strerror(errno)))") }
        var ok = true
        var failure = ""
        var t = text
        t.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = Foundation.write(fd, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { ok = false; failure = String(cString: strerror(errno)); return }
                off += n
            }
        }
        // The umask may have narrowed the mode; the collector must be able to read the file.
        if ok && fchmod(fd, mode) != 0 { ok = false; failure = String(cString: strerror(errno)) }
        if ok && fsync(fd) != 0 { ok = false; failure = String(cString: strerror(errno)) }
        close(fd)
        guard ok else {
            unlink(tmp)
            throw WriteError(description: "cannot write \(tmp): \(failure)")
        }
        guard rename(tmp, path) == 0 else {
            let e = String(cString: strerror(errno))
            unlink(tmp)
            throw WriteError(description: "cannot rename \(tmp) to \(path): \(e)")
        }
    }
}
