import Foundation

/// One source per file, however its path is spelled (`logs/a`, `./logs//a`, an absolute path,
/// a symlink): sources are keyed by the file's canonical real path.
public enum SourcePaths {
    /// The canonical real path of `path` (symlinks resolved, `.`/`..` removed); the path as
    /// given when it cannot be resolved (a vanished file).
    public static func canonical(_ path: String) -> String {
        guard path != "-", let p = realpath(path, nil) else { return path }
        defer { free(p) }
        return String(cString: p)
    }

    /// Canonical paths of the inputs, each file once, in the order first given.
    static func unique(_ files: [InputFile]) -> [InputFile] {
        var seen = Set<String>()
        var out: [InputFile] = []
        for f in files {
            let c = f.isStdin ? "-" : canonical(f.path)
            if f.isStdin || seen.insert(c).inserted { out.append(InputFile(path: c, named: f.named, isStream: f.isStream)) }
        }
        return out
    }
}
