import Foundation

/// An incident of a KPI page (a row of its `-- marks:` section) with what the `explain` report
/// finds in it: the weekly page gives each one a section that says what changed and where.
public struct IncidentExplanation {
    /// The incident as the page lists it (day, time, reason, count).
    public let title: String
    /// The window `explain` ran over (`ExplainWindow.around`).
    public let since: Int64
    public let until: Int64
    public let doc: ResultDocument
}

/// The window `explain` compares for a moment or an incident.
public enum ExplainWindow {
    static let fiveMinutes: Int64 = 300_000
    static let hour: Int64 = 3_600_000

    /// From half an hour before `start`, on 5-minute bounds (so its buckets are `report --by
    /// 5m`'s), for an hour or until `end` when that is later: the minutes before an incident are
    /// in the window, so its onset can be found, and its baseline is the same length just before.
    public static func around(_ start: Int64, until end: Int64? = nil) -> (since: Int64, until: Int64) {
        let early = start - hour / 2
        let since = early - ((early % fiveMinutes) + fiveMinutes) % fiveMinutes
        return (since, max(since + hour, end ?? 0))
    }
}

extension ReportRunner {
    /// How many of a page's incidents are explained (each is a run of `explain`).
    public static let explainedIncidents = 5

    /// The first incidents of `page` (a KPI page's document), each explained over the window
    /// around it; none when the engine cannot run `explain`. The runs go out at once.
    public func incidentExplanations(_ page: ResultDocument) throws -> [IncidentExplanation] {
        guard let def = catalog.report("explain"), (try? text(of: def)) != nil else { return [] }
        let incidents = WeeklyPage.incidentWindows(page).prefix(Self.explainedIncidents)
        let windows = incidents.map { ExplainWindow.around($0.from, until: $0.until) }
        let docs = try runs(windows.map { try sectionRun(def, ReportParams(since: $0.since, until: $0.until)) })
        return zip(zip(incidents, windows), docs).map { pair, doc in
            IncidentExplanation(title: pair.0.title, since: pair.1.since, until: pair.1.until, doc: doc)
        }
    }
}
