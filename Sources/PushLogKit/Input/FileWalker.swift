import Foundation

/// One input to ingest: a file path or standard input.
struct InputFile: Equatable {
    let path: String
    /// Named on the command line (not found by walking a folder).
    var named = true
    var isStdin: Bool { path == "-" }
}

/// Expands command-line paths: files as given, directories walked recursively in sorted
/// order (hidden entries and pushlog databases skipped, symlink loops cut, symbolic links that
/// lead out of the folder not followed), `-` for stdin.
enum FileWalker {
    static func expand(_ paths: [String], problems: inout [String]) -> [InputFile] {
        var out: [InputFile] = []
        var seenDirs = Set<String>()
        for p in paths {
            if p == "-" { out.append(InputFile(path: "-")); continue }
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: p, isDirectory: &isDir) else {
                problems.append("\(p): no such file or directory")
                continue
            }
            if isDir.boolValue {
                walk(p, root: realPath(p), &out, &seenDirs, &problems)
            } else {
                out.append(InputFile(path: p))
            }
        }
        return out
    }

    static func realPath(_ p: String) -> String { URL(fileURLWithPath: p).resolvingSymlinksInPath().path }

    /// True when `path` is a symbolic link whose target is outside `root` (a link to `..`, to /etc).
    static func leaves(_ path: String, root: String) -> Bool {
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil else { return false }
        let target = realPath(path)
        return !(target == root || target.hasPrefix(root.hasSuffix("/") ? root : root + "/"))
    }

    static func walk(_ dir: String, root: String, _ out: inout [InputFile], _ seen: inout Set<String>, _ problems: inout [String]) {
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
            if isDir.boolValue { walk(path, root: root, &out, &seen, &problems) } else { out.append(InputFile(path: path, named: false)) }
        }
    }
}
