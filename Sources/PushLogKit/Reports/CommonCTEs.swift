import Foundation

/// The items of a report's `-- common:` block one by one, split at the commas outside
/// parentheses, brackets, quotes and comments: CTEs (`name AS (...)`, `name(a, b) AS (...)`,
/// `name AS NOT MATERIALIZED (...)`) and, in ClickHouse's text, expressions with a name
/// (`expr AS name`). The runner materializes some of them once for all sections
/// (`-- materialize:`), and sends each statement only the items it names.
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
            if c == "(" || c == "[" { depth += 1 }
            if c == ")" || c == "]" { depth -= 1 }
            if c == "," && depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(c)
            }
            i = common.index(after: i)
        }
        parts.append(current)
        return parts.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }.map { ($0.name, $0) }
    }

    /// The items `sql` needs of `items`: those it names, and those these name, in their order.
    static func needed(by sql: String, of items: [(name: String, sql: String)]) -> [(name: String, sql: String)] {
        var named = words(sql)
        var kept = Set<Int>()
        var grew = true
        while grew {
            grew = false
            for (i, item) in items.enumerated() where !kept.contains(i) && (item.name.isEmpty || named.contains(Substring(item.name))) {
                kept.insert(i)
                named.formUnion(words(item.sql))
                grew = true
            }
        }
        return items.indices.filter { kept.contains($0) }.map { items[$0] }
    }

    /// The identifiers in `sql` (a word in a string or a comment too: it keeps an item that is
    /// not needed, which costs only its parsing).
    static func words(_ sql: String) -> Set<Substring> {
        Set(sql.split { !($0.isLetter || $0.isNumber || $0 == "_") })
    }
}

extension String {
    /// A common item's name: an expression's, after its last `AS` (`expr AS name`), else a
    /// CTE's, leading (`name AS (`, `name(a, b) AS (`).
    fileprivate var name: String {
        let isWord = { (w: Substring) in !w.isEmpty && w.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }
        let words = split { $0 == " " || $0 == "\n" }
        if words.count >= 2, words[words.count - 2].uppercased() == "AS", isWord(words[words.count - 1]) {
            return String(words[words.count - 1])
        }
        return String(prefix { $0.isLetter || $0.isNumber || $0 == "_" })
    }
}
