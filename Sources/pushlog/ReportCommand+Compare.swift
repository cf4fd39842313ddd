import Foundation
import PushLogKit

extension ReportCommand {
    /// `--compare previous`: checks the report can take it and fills in the end of the range
    /// (now) when only `--since` is given. Returns whether to compare.
    static func comparePrevious(_ args: Arguments, _ def: ReportDefinition, _ params: inout ReportParams) throws -> Bool {
        guard let v = args.value("--compare") else { return false }
        guard v == "previous" else {
            throw UsageError(
                message: "unknown --compare '\(v)'", hint: "the only comparison is --compare previous (the same-length range just before)")
        }
        guard def.paramNames.contains("since") && def.paramNames.contains("until") else {
            throw UsageError(
                message: "report \(def.name) does not take --compare",
                hint: def.paramNames.contains("week")
                    ? "the weekly report compares with the week before already" : "it has no time range to compare")
        }
        guard params.since != nil else {
            throw UsageError(
                message: "--compare previous needs --since (the range to compare with the one before)",
                hint: "pushlog report \(def.name) --since 7d --compare previous")
        }
        if params.until == nil { params.until = Int64(Date().timeIntervalSince1970 * 1000) }
        // Time buckets are matched one range-length back: with a range that is not a whole number
        // of buckets the earlier bucket would cover a different stretch (a fake jump), so refuse.
        let unit = TimeUnit(rawValue: params.by ?? def.paramDefaults["by"] ?? "")
        if let unit, let since = params.since, let until = params.until, def.byValues != nil {
            let aligned = { (t: Int64) in unit.start(t) == t }
            guard aligned(since) && aligned(until) else {
                let example =
                    unit == .week
                    ? "--since 2026-W45 --until 2026-W47"
                    : unit == .day ? "--since 2026-11-02 --until 2026-11-09" : "whole \(unit.rawValue)s"
                throw UsageError(
                    message: "--compare previous with --by \(unit.rawValue) needs a range of whole \(unit.rawValue) buckets",
                    hint: "e.g. \(example), or --by a finer unit")
            }
        }
        return true
    }
}
