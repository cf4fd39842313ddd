import Foundation
import PushLogKit

extension ReportCommand {
    /// `report` on a ClickHouse server: the same arguments, checks and output as on SQLite; the
    /// sections come from the ClickHouse dialect of the report (EngineReportRunner).
    static func runOnClickHouse(_ argv: [String], _ ctx: Context, _ url: ClickHouseURL) throws -> Int32 {
        if argv.contains("--watch") {
            throw UsageError(message: "--watch does not run on ClickHouse yet", hint: "run the report in a loop, e.g. with watch(1)")
        }
        let args = try Arguments(argv, command: name, valued: valued, boolean: OutputTarget.boolean)
        guard let reportName = args.positionals.first else {
            throw UsageError(message: "report needs a NAME", hint: "pushlog reports  (lists them), e.g. pushlog report gone")
        }
        try args.allowPositionals(1, command: "report \(reportName)", timeOption: "--since")
        let out = try OutputTarget(args)
        let catalog = try QueryCatalog(userDirectory: args.value("--queries") ?? ProcessInfo.processInfo.environment["PUSHLOG_QUERIES"])
        guard let def = catalog.report(reportName) else {
            let guess = Arguments.closest(reportName, catalog.reports.map(\.name))
            throw UsageError(
                message: "no report named '\(reportName)'",
                hint: (guess.map { "did you mean '\($0)'? " } ?? "") + "pushlog reports lists them")
        }
        try refuseUndeclared(args, def)
        var params = try parseParams(args)
        let compare = try comparePrevious(args, def, &params)
        var conditions: [FailCondition] = []
        for e in args.all("--fail-if") {
            guard let c = FailCondition(e) else {
                throw UsageError(
                    message: "cannot read --fail-if '\(e)'",
                    hint: "use 'COLUMN OP NUMBER', joined by and/or, e.g. --fail-if 'gone_rate > 0.02 or gone > 500'")
            }
            conditions.append(c)
        }
        let engine = try ClickHouseEngine(ClickHouseClient(url))
        let runner = EngineReportRunner(engine: engine, catalog: catalog)
        let doc =
            compare ? try runner.runComparingPrevious(name: reportName, params: params) : try runner.run(name: reportName, params: params)
        for c in conditions {
            for f in c.comparisons where !f.isKnown(in: doc) {
                let names = FailIf.names(in: doc)
                let guess = Arguments.closest(f.column, names)
                throw UsageError(
                    message:
                        "--fail-if: no column '\(f.column)' in the \(doc.section("kpis") != nil ? "KPIs" : "summary") of \(reportName)",
                    hint: (guess.map { "did you mean '\($0)'? " } ?? "") + "columns: \(names.joined(separator: ", "))")
            }
        }
        try out.write(doc, db: nil, mask: out.revealTokens ? nil : try TokenMask(clickhouse: engine.client))
        try refuseNotObservable(conditions, doc: doc)
        let breached = conditions.filter { $0.holds(in: doc) }
        for c in breached {
            let seen = c.comparisons.map { f in "\(f.column) = \(f.observed(in: doc).map(FailIf.show) ?? "null")" }
            Console.err("pushlog: --fail-if breached: \(c.source) (\(seen.joined(separator: ", ")))")
        }
        return breached.isEmpty ? 0 : 3
    }
}
