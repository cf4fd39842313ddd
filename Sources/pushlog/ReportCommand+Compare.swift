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
        let sections = Set(ReportRunner.sectionNames(def))
        guard def.paramNames.contains("since") && def.paramNames.contains("until"),
            !sections.isDisjoint(with: ["summary", "by_bucket"])
        else {
            throw UsageError(
                message: "report \(def.name) does not take --compare",
                hint: def.paramNames.contains("week")
                    ? "the weekly report compares with the week before already"
                    : def.paramNames.contains("since")
                        ? "it has no summary or by_bucket to compare; run it on each range" : "it has no time range to compare")
        }
        guard params.since != nil else {
            throw UsageError(
                message: "--compare previous needs --since (the range to compare with the one before)",
                hint: "pushlog report \(def.name) --since 7d --compare previous")
        }
        if params.until == nil { params.until = Int64(Date().timeIntervalSince1970 * 1000) }
        return true
    }

    /// Relative ranges (`--since 7d`, `--since yesterday`, no `--until`) where time buckets are
    /// shown or compared start at a bucket's start: `--since 7d --by day` is the last 7 whole days
    /// and today so far. With `--compare` and no `--by`, a range shorter than the report's default
    /// bucket is bucketed by the largest unit it spans. Returns the unit the start was aligned to.
    static func alignRange(_ args: Arguments, _ def: ReportDefinition, _ params: inout ReportParams, compare: Bool) -> TimeUnit? {
        guard let since = params.since, let sinceText = args.value("--since"), TimeArgument.isRelative(sinceText) else { return nil }
        guard let allowed = def.byValues else { return nil }
        let units = TimeUnit.allCases.filter { allowed.contains($0.rawValue) }
        let until = params.until ?? Int64(Date().timeIntervalSince1970 * 1000)
        var unit = params.by.flatMap(TimeUnit.init(rawValue:))
        if unit == nil && params.by == nil && compare, let d = def.paramDefaults["by"].flatMap(TimeUnit.init(rawValue:)) {
            unit = d.step <= until - since ? d : units.last { $0.step <= until - since } ?? units.first
            if unit != d { params.by = unit?.rawValue }
        }
        guard let unit else { return nil }
        params.since = unit.start(since)
        return unit
    }

    /// How far back the previous range lies: its length, or with a range open to the clock, its
    /// length rounded up to whole buckets, so each bucket meets the same stretch of its twin.
    static func compareShift(_ args: Arguments, _ def: ReportDefinition, _ params: ReportParams) throws -> Int64 {
        let (since, until) = (params.since!, params.until!)
        let unit = TimeUnit(rawValue: params.by ?? def.paramDefaults["by"] ?? "")
        guard let unit, def.byValues != nil, unit.start(since) != since || unit.start(until) != until else { return until - since }
        let open = args.value("--until").map(TimeArgument.isRelative) ?? true
        guard open || args.value("--since").map(TimeArgument.isRelative) == true else {
            let example =
                unit == .week
                ? "--since 2026-W45 --until 2026-W47"
                : unit == .day ? "--since 2026-11-02 --until 2026-11-09" : "whole \(unit.rawValue)s"
            throw UsageError(
                message:
                    "--compare previous with --by \(unit.rawValue)\(params.by == nil ? " (the report's default)" : "") needs a range of whole \(unit.rawValue) buckets",
                hint: "e.g. \(example), a relative range such as --since 7d, or --by a finer unit")
        }
        return (until - since + unit.step - 1) / unit.step * unit.step
    }
}
