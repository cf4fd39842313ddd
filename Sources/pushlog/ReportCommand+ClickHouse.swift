import Foundation
import PushLogKit

extension ReportCommand {
    /// `report` on a ClickHouse server: the same arguments, checks and output as on SQLite; the
    /// sections come from the ClickHouse dialect of the report (EngineReportRunner).
    static func runOnClickHouse(_ argv: [String], _ ctx: Context, _ url: ClickHouseURL) throws -> Int32 {
        if argv.contains(where: { $0 == "--watch" || $0.hasPrefix("--watch=") }) { return try Watch.reportOnClickHouse(argv, url) }
        let req = try request(argv)
        let engine = try ClickHouseEngine(ClickHouseClient(url), overlapping: true, rebuilding: Console.factsRebuildNotice)
        let runner = EngineReportRunner(engine: engine, catalog: req.catalog)
        var doc =
            req.compare
            ? try runner.runComparingPrevious(name: req.name, params: req.params, shift: req.shift)
            : try runner.run(name: req.name, params: req.params)
        if let aligned = req.aligned { doc.params.append(("aligned_to", .text(aligned.rawValue))) }
        try checkColumns(req, doc)
        for note in try engine.coverageNotes(for: req.params, report: req.def) { Console.err("pushlog: \(note)") }
        let mask = req.out.revealTokens ? nil : try engine.facts.mask
        return try finish(req, doc, write: { try req.out.write($0, db: nil, mask: mask) }) {
            try engine.hasRecords(since: $0, until: $1, $2, topic: $3, env: $4)
        }
    }
}
