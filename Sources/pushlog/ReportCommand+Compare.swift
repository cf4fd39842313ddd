import Foundation
import PushLogKit

extension ReportCommand {
    /// `--compare previous`: checks the report can take it and fills in the end of the range
    /// (now) when only `--since` is given. Returns whether to compare.
    static func comparePrevious(_ args: Arguments, _ def: ReportDefinition, _ params: inout ReportParams) throws -> Bool {
        guard let v = args.value("--compare") else { return false }
        guard v == "previous" else {
            throw UsageError(message: "unknown --compare '\(v)'", hint: "the only comparison is --compare previous (the same-length range just before)")
        }
        guard def.paramNames.contains("since") && def.paramNames.contains("until") else {
            throw UsageError(message: "report \(def.name) does not take --compare",
                             hint: def.paramNames.contains("week") ? "the weekly report compares with the week before already" : "it has no time range to compare")
        }
        guard params.since != nil else {
            throw UsageError(message: "--compare previous needs --since (the range to compare with the one before)",
                             hint: "pushlog report \(def.name) --since 7d --compare previous")
        }
        if params.until == nil { params.until = Int64(Date().timeIntervalSince1970 * 1000) }
        return true
    }
}
