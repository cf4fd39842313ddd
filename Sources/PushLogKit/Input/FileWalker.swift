import Foundation

/// One input to ingest: a file path or standard input.
public struct InputFile: Equatable {
    public let path: String
    public var isStdin: Bool { path == "-" }
}

/// Expands command-line paths: files as given, directories walked recursively in sorted
/// order (hidden entries and pushlog databases skipped, symlink loops cut), `-` for stdin.
public enum FileWalker {
    public static func expand(_ paths: [String], problems: inout [String]) -> [InputFile] {
        var out: [InputFile] = []
        var seenDirs = Set<String>()
        for p in paths {
            if p == "-" { out.append(InputFile(path: "-")); continue }
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: p, isDirectory: &isDir) else {
                problems.append("\(p): no such file or directory")
                continue
            }
            if isDir.boolValue { walk(p, &out, &seenDirs, &problems) } else { out.append(InputFile(path: p)) }
        }
        return out
    }

    static func walk(_ dir: String, _ out: inout [InputFile], _ seen: inout Set<String>, _ problems: inout [String]) {
        let real = (try? FileManager.default.destinationOfSymbolicLink(atPath: dir)).map {
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
            if isDir.boolValue { walk(path, &out, &seen, &problems) } else { out.append(InputFile(path: path)) }
        }
    }
}
