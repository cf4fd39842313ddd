import Foundation

struct CatalogError: Error, CustomStringConvertible {
    let description: String
    init(_ s: String) { description = s }
}

/// A user's report file (`--queries DIR`) whose header cannot be read: the user's input is
/// wrong, as with a bad option (the CLI exits 2). The description names the file and line.
public struct ReportFileError: Error, CustomStringConvertible {
    public let description: String
}

/// The built-in reports plus user reports from `--queries DIR` / `$PUSHLOG_QUERIES`.
public struct QueryCatalog {
    public private(set) var reports: [ReportDefinition] = []

    public init(userDirectory: String? = nil) throws {
        for (name, text) in BuiltInQueries.files.sorted(by: { $0.key < $1.key }) {
            let def = try ReportDefinition.parse(name: name, text: text, origin: "built-in")
            if let e = def.undeclaredUse { throw CatalogError("\(e)") }
            reports.append(def)
        }
        if let dir = userDirectory {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
                throw CatalogError("cannot read the queries directory \(dir)")
            }
            for file in names.sorted() where file.hasSuffix(".sql") {
                let path = dir + "/" + file
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw CatalogError("cannot read \(path)") }
                var def: ReportDefinition
                do { def = try ReportDefinition.parse(name: String(file.dropLast(4)), text: text, origin: path) } catch let e
                    as CatalogError
                {
                    throw ReportFileError(description: e.description)
                }
                if let weekly = report("weekly") { def.takeWeeklyLayoutIfUndeclared(weekly) }
                // A misspelt parameter (`:sinec`) would bind NULL and quietly change the figures.
                if let e = def.undeclaredUse { throw e }
                reports.removeAll { $0.name == def.name }  // a user file overrides a built-in of the same name
                reports.append(def)
            }
        }
        do { try checkPages() } catch let e as CatalogError where userDirectory != nil { throw ReportFileError(description: e.description) }
    }

    public func report(_ name: String) -> ReportDefinition? { reports.first { $0.name == name } }

    /// A KPI page reads other reports by name: each must be in the catalog with the section
    /// named, so a misspelt `-- kpi:` line stops the load rather than a Monday's page.
    func checkPages() throws {
        for page in reports where page.isKPIPage {
            let file = page.origin == "built-in" ? page.name + ".sql" : page.origin
            let reads =
                page.kpis.map { ("kpi", $0.name, $0.report, $0.section) }
                + page.weekSections.map { ("weeks", $0.name, $0.report, $0.section) }
                + page.trends.map { ("trend", $0.name, $0.report, $0.section) }
            for (line, name, source, section) in reads {
                guard let def = report(source) else {
                    throw CatalogError("\(file): -- \(line): \(name) reads report '\(source)', which the catalog does not have")
                }
                guard def.sections.contains(where: { $0.name == section }) else {
                    throw CatalogError("\(file): -- \(line): \(name) reads \(source).\(section), but \(source) has no section \(section)")
                }
            }
        }
    }
}

extension ReportDefinition {
    /// A KPI page written before pages declared their trends, daily fill, headings and marks
    /// showed the weekly page's, which the page code held then: such a page (one that declares
    /// none of them) still gets weekly's, and weekly's column meanings where it declares none.
    mutating func takeWeeklyLayoutIfUndeclared(_ weekly: ReportDefinition) {
        guard isKPIPage, trends.isEmpty, fills.isEmpty, headings.isEmpty, marks == nil else { return }
        trends = weekly.trends
        fills = weekly.fills
        headings = weekly.headings
        marks = weekly.marks
        columns.merge(weekly.columns) { own, _ in own }
    }
}
