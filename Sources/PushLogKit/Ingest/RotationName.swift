import Foundation

/// The files one log becomes as it is rotated: `app.log`, `app.log.1`, `app.log.2.gz`,
/// `app.log-20261102`, and the content a path held before it was replaced (`SourceRows.setAside`).
/// They share a stem; what tells them apart is their age, oldest first when read together, so
/// each file's records can be counted on from those of the files before it (`Lineage`).
struct RotationName: Equatable {
    /// The directory and the log's own name, every rotation suffix removed.
    let stem: String
    /// Orders the set: a larger key is older.
    let age: Age

    enum Age: Comparable {
        /// The live file.
        case current
        /// `.N`: a larger number is older.
        case numbered(Int)
        /// `-DATE` (logrotate's dateext): an earlier date is older, and every dated file is older
        /// than a numbered one in a set that mixes them.
        case dated(String)
        /// A path's earlier content, set aside when the path was found holding another file.
        case replaced(String)

        static func < (a: Age, b: Age) -> Bool {
            switch (a, b) {
            case (.current, .current): return false
            case (.current, _): return true
            case (_, .current): return false
            case (.numbered(let x), .numbered(let y)): return x < y
            case (.numbered, _): return true
            case (_, .numbered): return false
            case (.dated(let x), .dated(let y)), (.replaced(let x), .replaced(let y)): return x > y
            case (.dated, .replaced): return true
            case (.replaced, .dated): return false
            }
        }
    }

    /// The suffix of a path's earlier content: the path, this and the time it was set aside.
    static let replacedMark = " (replaced "

    init(_ path: String) {
        var name = path
        if let r = name.range(of: RotationName.replacedMark, options: .backwards) {
            stem = String(name[..<r.lowerBound])
            age = .replaced(String(name[r.upperBound...]))
            return
        }
        if name.hasSuffix(".gz") { name.removeLast(3) }
        let base = name.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        if let dot = base.lastIndex(of: "."), dot != base.startIndex, case let digits = base[base.index(after: dot)...],
            (1...4).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(digits)
        {
            stem = String(name.dropLast(base.distance(from: dot, to: base.endIndex)))
            age = .numbered(n)
            return
        }
        // dateext: `-YYYYMMDD` or `-YYYY-MM-DD`, maybe with an hour or seconds after it
        // (`-%Y%m%d%H`, `-%Y%m%d-%s`).
        for dash in base.indices where base[dash] == "-" && dash != base.startIndex {
            let rest = base[base.index(after: dash)...]
            if rest.filter(\.isNumber).count >= 8, rest.hasPrefix("19") || rest.hasPrefix("20"),
                rest.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") })
            {
                stem = String(name.dropLast(base.distance(from: dash, to: base.endIndex)))
                age = .dated(String(rest))
                return
            }
        }
        stem = name
        age = .current
    }

    /// The paths in the order to read them: the members of each rotation set oldest first, in the
    /// places the set's members held; other paths where they were.
    static func oldestFirst(_ files: [InputFile]) -> [InputFile] {
        let names = files.map { $0.isStdin ? nil : RotationName($0.path) }
        var places: [String: [Int]] = [:]
        for (i, n) in names.enumerated() { if let n { places[n.stem, default: []].append(i) } }
        var out = files
        for (_, at) in places where at.count > 1 {
            let sorted = at.sorted { names[$0]!.age > names[$1]!.age }
            for (slot, from) in zip(at, sorted) { out[slot] = files[from] }
        }
        return out
    }
}
