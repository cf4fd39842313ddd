extension ColumnInfo {
    /// Reads the text after `-- column:`: one or more names (comma-separated) and what they mean.
    static func parse(_ text: String, at place: String) throws -> [(String, ColumnInfo)] {
        let usage =
            "use -- column: NAME[,NAME] ROLE [better=up|down|none] [unit=WORD] [per=bucket] [over=COLUMN] [needs=NEED,...]  LABEL,"
            + " ROLE one of \(Role.allCases.map(\.rawValue).joined(separator: ", "))"
        var words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard words.count >= 2 else { throw CatalogError("\(place): cannot read the column; \(usage)") }
        let names = words.removeFirst().split(separator: ",").map(String.init)
        let roleWord = words.removeFirst()
        guard let role = Role(rawValue: roleWord) else { throw CatalogError("\(place): unknown column role '\(roleWord)'; \(usage)") }
        var info = ColumnInfo(role: role)
        while let w = words.first, let eq = w.firstIndex(of: "=") {
            words.removeFirst()
            let (k, v) = (String(w[..<eq]), String(w[w.index(after: eq)...]))
            switch k {
            case "better":
                guard let b = Better(rawValue: v) else { throw CatalogError("\(place): better=\(v): use better=up, down or none") }
                info.better = b
            case "unit": info.unit = v
            case "per":
                guard v == "bucket" else { throw CatalogError("\(place): per=\(v): only per=bucket is known") }
                info.perBucket = true
            case "over": info.over = v
            case "needs":
                for n in v.split(separator: ",") {
                    guard let need = RecordNeed(rawValue: String(n)) else {
                        throw CatalogError(
                            "\(place): needs=\(n): use one of \(RecordNeed.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    info.needs.append(need)
                }
            default: throw CatalogError("\(place): unknown column attribute '\(k)'; \(usage)")
            }
        }
        if !words.isEmpty { info.label = words.joined(separator: " ") }
        return names.map { ($0, info) }
    }
}
