import Foundation

/// One report of the catalog: a `.sql` file with a header and named sections.
public struct ReportDefinition {
    public var name: String
    public var title: String
    public var description: String
    /// Parameter names with their help, as the header lists them.
    var params: [(String, String)]
    var sections: [(name: String, sql: String)]
    /// Where it came from: "built-in" or a file path.
    public var origin: String
    /// KPIs a report assembles from other reports (`-- kpi:` lines, the weekly report's).
    var kpis: [KPI] = []

    /// `-- kpi: NAME = REPORT.SECTION.COLUMN [whole]`: a figure of another report, run on the
    /// report's week and the week before. `whole`: not split by topic/env (empty under a filter).
    struct KPI: Sendable {
        let name, report, section, column: String
        let wholeDataOnly: Bool
    }

    /// Parses the file format:
    /// ```
    /// -- title: Token gone (410) rates
    /// -- description: ...
    /// -- param: since  start of the range
    /// -- section: summary
    /// SELECT ...;
    /// ```
    /// An optional `-- common:` block before the sections holds CTEs (`name AS (...), ...`) that
    /// every section can use: they are put in front of each section's own `WITH`.
    static func parse(name: String, text: String, origin: String) throws -> ReportDefinition {
        var d = ReportDefinition(name: name, title: name, description: "", params: [], sections: [], origin: origin)
        var current: String?
        var inCommon = false
        var common = ""
        var sql = ""
        func flush() {
            if let c = current {
                var body = sql.trimmingCharacters(in: .whitespacesAndNewlines)
                if body.hasSuffix(";") { body.removeLast() }
                let shared = common.trimmingCharacters(in: .whitespacesAndNewlines)
                if !shared.isEmpty {
                    // Merge with the section's own WITH (after its leading comments), if it has one.
                    var lines = body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    if let i = lines.firstIndex(where: { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }),
                        lines[i].uppercased().hasPrefix("WITH ")
                    {
                        lines[i] = shared + ",\n" + lines[i].dropFirst(5)
                        body = "WITH " + lines.joined(separator: "\n")
                    } else {
                        body = "WITH " + shared + "\n" + body
                    }
                }
                d.sections.append((c, body))
            }
            sql = ""
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let l = line.trimmingCharacters(in: .whitespaces)
            if current == nil && l.hasPrefix("-- common:") {
                inCommon = true
            } else if inCommon && current == nil && !l.hasPrefix("-- section:") {
                if !l.hasPrefix("--") { common += line + "\n" }
            } else if l.hasPrefix("-- section:") {
                inCommon = false
                flush()
                current = l.dropFirst("-- section:".count).trimmingCharacters(in: .whitespaces)
            } else if current == nil && l.hasPrefix("-- title:") {
                d.title = l.dropFirst("-- title:".count).trimmingCharacters(in: .whitespaces)
            } else if current == nil && l.hasPrefix("-- description:") {
                let more = l.dropFirst("-- description:".count).trimmingCharacters(in: .whitespaces)
                d.description += (d.description.isEmpty ? "" : " ") + more
            } else if current == nil && l.hasPrefix("-- kpi:") {
                let rest = l.dropFirst("-- kpi:".count).split(separator: "=", maxSplits: 1)
                let source = rest.count == 2 ? rest[1].split(separator: " ").map(String.init) : []
                let path = source.first?.split(separator: ".").map(String.init) ?? []
                guard rest.count == 2, path.count == 3 else {
                    throw CatalogError("\(origin): cannot read '\(l)': use -- kpi: NAME = REPORT.SECTION.COLUMN [whole]")
                }
                d.kpis.append(
                    KPI(
                        name: rest[0].trimmingCharacters(in: .whitespaces), report: path[0], section: path[1],
                        column: path[2], wholeDataOnly: source.dropFirst().contains("whole")))
            } else if current == nil && l.hasPrefix("-- param:") {
                let rest = l.dropFirst("-- param:".count).trimmingCharacters(in: .whitespaces)
                let parts = rest.split(separator: " ", maxSplits: 1)
                d.params.append((String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""))
            } else if current != nil {
                sql += line + "\n"
            }
        }
        flush()
        if d.sections.isEmpty {
            throw CatalogError("\(origin): no '-- section: NAME' line; a report needs at least one section")
        }
        return d
    }
}
