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
        return parts.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }.map { (name(of: $0), $0) }
    }

    /// The items `sql` needs of `items`: those it names, and those these name, in their order.
    /// Names match as SQL matches them, whatever their case; an item without a name it can read
    /// is always kept.
    static func needed(by sql: String, of items: [(name: String, sql: String)]) -> [(name: String, sql: String)] {
        var named = words(sql)
        var kept = Set<Int>()
        var grew = true
        while grew {
            grew = false
            for (i, item) in items.enumerated() where !kept.contains(i) && (item.name.isEmpty || named.contains(item.name.lowercased())) {
                kept.insert(i)
                named.formUnion(words(item.sql))
                grew = true
            }
        }
        return items.indices.filter { kept.contains($0) }.map { items[$0] }
    }

    /// The identifiers in `sql`, in lower case, outside its comments and string literals.
    static func words(_ sql: String) -> Set<String> {
        Set(code(sql).lowercased().split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
    }

    /// `sql` without its comments and string literals (each left as a space).
    static func code(_ sql: String) -> String {
        var out = ""
        var i = sql.startIndex
        while i < sql.endIndex {
            let c = sql[i]
            if c == "'" {
                var j = sql.index(after: i)
                while j < sql.endIndex {
                    if sql[j] == "'" {
                        let next = sql.index(after: j)
                        if next < sql.endIndex && sql[next] == "'" {
                            j = sql.index(after: next)
                            continue
                        }
                        break
                    }
                    j = sql.index(after: j)
                }
                out.append(" ")
                i = j < sql.endIndex ? sql.index(after: j) : j
                continue
            }
            if c == "-", sql[i...].hasPrefix("--") {
                out.append(" ")
                i = sql[i...].firstIndex(of: "\n") ?? sql.endIndex
                continue
            }
            out.append(c)
            i = sql.index(after: i)
        }
        return out
    }

    /// `name AS (`, `name(a, b) AS (`, `name AS [NOT] MATERIALIZED (`: a CTE.
    private static let cte = try! NSRegularExpression(
        pattern: #"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\([^()]*\))?\s+AS\s+(NOT\s+)?(MATERIALIZED\s+)?\("#, options: [.caseInsensitive])
    /// `expr AS name` at the end of an item (the name possibly quoted): a named expression.
    private static let alias = try! NSRegularExpression(
        pattern: #"\sAS\s+[`"]?([A-Za-z_][A-Za-z0-9_]*)[`"]?\s*$"#, options: [.caseInsensitive])

    /// A common item's name: a CTE's, else a named expression's; empty when it is neither.
    static func name(of item: String) -> String {
        let text = code(item)
        let range = NSRange(text.startIndex..., in: text)
        for pattern in [cte, alias] {
            if let m = pattern.firstMatch(in: text, range: range), let r = Range(m.range(at: 1), in: text) { return String(text[r]) }
        }
        return ""
    }
}
