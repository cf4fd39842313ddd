import Foundation

/// One input to ingest: a file path or standard input.
struct InputFile: Equatable {
    let path: String
    /// Named on the command line (not found by walking a folder).
    var named = true
    /// Read once from its start, as stdin is: standard input, or a FIFO or device named on the
    /// command line (`pushlog ingest <(kubectl logs …)`), which has no size, head or position to
    /// resume from.
    var isStream = false
    var isStdin: Bool { path == "-" }
}

/// Expands command-line paths: files as given, directories walked recursively in sorted
/// order (hidden entries and pushlog databases skipped, symlink loops cut, symbolic links that
/// lead out of the folder not followed, FIFOs, sockets and devices skipped), `-` for stdin.
enum FileWalker {
    /// `notes` says what a walk skipped that a user may have meant to read (a FIFO, a socket);
    /// `problems`, what could not be read at all.
    static func expand(_ paths: [String], problems: inout [String], notes: inout [String]) -> [InputFile] {
        var out: [InputFile] = []
        var seenDirs = Set<String>()
        for p in paths {
            if p == "-" { out.append(InputFile(path: "-", isStream: true)); continue }
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: p, isDirectory: &isDir) else {
                problems.append("\(p): no such file or directory")
                continue
            }
            if isDir.boolValue {
                walk(p, root: realPath(p), &out, &seenDirs, &problems, &notes)
            } else {
                out.append(InputFile(path: p, isStream: kind(p) != nil))
            }
        }
        return out
    }

    /// The same, saying nothing of what a walk skipped (a polling loop would say it every round).
    static func expand(_ paths: [String], problems: inout [String]) -> [InputFile] {
        var notes: [String] = []
        return expand(paths, problems: &problems, notes: &notes)
    }

    /// What `path` is when it is not a regular file or a folder (its open or read may wait for a
    /// writer forever), or nil.
    static func kind(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG, S_IFDIR: return nil
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        default: return "not a regular file"
        }
    }

    static func realPath(_ p: String) -> String { URL(fileURLWithPath: p).resolvingSymlinksInPath().path }

    /// True when `path` is a symbolic link whose target is outside `root` (a link to `..`, to /etc).
    static func leaves(_ path: String, root: String) -> Bool {
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil else { return false }
        let target = realPath(path)
        return !(target == root || target.hasPrefix(root.hasSuffix("/") ? root : root + "/"))
    }

    static func walk(
        _ dir: String, root: String, _ out: inout [InputFile], _ seen: inout Set<String>, _ problems: inout [String],
        _ notes: inout [String]
    ) {
        let real =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: dir)).map {
                $0.hasPrefix("/") ? $0 : (dir as NSString).deletingLastPathComponent + "/" + $0
            } ?? dir
        let key = URL(fileURLWithPath: real).resolvingSymlinksInPath().path
        if seen.contains(key) { return }  // a symlink loop or a directory reached twice
        seen.insert(key)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        } catch {
            problems.append("\(dir): cannot list directory")
            return
        }
        for name in names where !name.hasPrefix(".") {
            if name.hasSuffix(".db") || name.hasSuffix(".db-wal") || name.hasSuffix(".db-shm") || name.hasSuffix(".db.lock") { continue }
            let path = dir.hasSuffix("/") ? dir + name : dir + "/" + name
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                problems.append("\(path): broken symbolic link or vanished file, skipped")
                continue
            }
            if leaves(path, root: root) { continue }
            if isDir.boolValue {
                walk(path, root: root, &out, &seen, &problems, &notes)
            } else if let what = kind(path) {
                notes.append("\(path): \(what), not a log file; skipped")
            } else {
                out.append(InputFile(path: path, named: false))
            }
        }
    }
}
