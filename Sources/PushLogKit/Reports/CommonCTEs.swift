import Foundation

/// The CTEs of a report's `-- common:` block one by one (`name AS (...)`, `name(a, b) AS (...)`,
/// `name AS NOT MATERIALIZED (...)`), split at the commas outside parentheses, quotes and
/// comments, so the runner can materialize some of them once for all sections (`-- materialize:`).
enum CommonCTEs {
    static func split(_ common: String) -> [(name: String, sql: String)] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var i = common.startIndex
        while i < common.endIndex {
            let c = common[i]
            if c == "'" || c == "\"" {
                // A quoted string or identifier, with doubled quotes inside.
                current.append(c)
                var j = common.index(after: i)
                while j < common.endIndex {
                    current.append(common[j])
                    if common[j] == c {
                        let next = common.index(after: j)
                        if next < common.endIndex && common[next] == c {
                            current.append(c)
                            j = common.index(after: next)
                            continue
                        }
                        break
                    }
                    j = common.index(after: j)
                }
                i = j < common.endIndex ? common.index(after: j) : j
                continue
            }
            if c == "-", common[i...].hasPrefix("--") {
                // A comment to the end of the line (kept: it may explain the SQL).
                let end = common[i...].firstIndex(of: "\n") ?? common.endIndex
                current += common[i..<end]
                i = end
                continue
            }
            if c == "(" { depth += 1 }
            if c == ")" { depth -= 1 }
            if c == "," && depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(c)
            }
            i = common.index(after: i)
        }
        parts.append(current)
        return parts.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }.map { part in
            let name = part.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            return (String(name), part)
        }
    }
}
