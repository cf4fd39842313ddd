/// The parameters a report can bind (`:since`, `:until`, `:by`, ...). Unset ones bind NULL
/// or the report's declared default.
public struct ReportParams: Sendable {
    public var since: Int64?
    public var until: Int64?
    public var by: String?
    public var topic: String?
    public var env: String?
    public var budget: Int64?
    public var unit: String?
    public var week: String?
    var limit: Int64?
    /// hygiene: only this rule (so `--fail-if` reads one row).
    public var rule: String?
    /// The parameters a report declares beyond the ones above (`-- param: threshold int = 5`),
    /// each typed by its declaration (`ReportParameter.bound`); `ReportDefinition.withDefaults`
    /// fills in the declared defaults of those not given.
    public var own: [String: SQLValue] = [:]

    public init(
        since: Int64? = nil, until: Int64? = nil, by: String? = nil, topic: String? = nil, env: String? = nil,
        budget: Int64? = nil, unit: String? = nil, week: String? = nil, limit: Int64? = nil, rule: String? = nil
    ) {
        self.since = since; self.until = until; self.by = by; self.topic = topic; self.env = env
        self.budget = budget; self.unit = unit; self.week = week; self.limit = limit; self.rule = rule
    }

    /// The value bound to `:name`, with `defaults` from the report header. A report without a
    /// `by` default (by_bucket only with --by) still binds and shows `day`; `limit` takes no option
    /// and is 10 unless the header says otherwise.
    func value(_ name: String, defaults: [String: String]) -> SQLValue {
        switch name {
        case "since": return .int(bounds.since)
        case "until": return .int(bounds.until)
        case "by": return .text(by ?? defaults["by"] ?? "day")
        case "topic": return topic.map { .text($0) } ?? .null
        case "env": return env.map { .text($0) } ?? .null
        case "budget": return (budget ?? defaults["budget"].flatMap { Int64($0) }).map { .int($0) } ?? .null
        case "unit": return (unit ?? defaults["unit"]).map { .text($0) } ?? .null
        case "limit": return .int(limit ?? Int64(defaults["limit"] ?? "10") ?? 10)
        case "rule": return rule.map { .text($0) } ?? .null
        default: return own[name] ?? .null
        }
    }

    /// The range as reports bind it: an open end is ±9e15 ms (a time every function takes).
    var bounds: (since: Int64, until: Int64) { (since ?? -9_000_000_000_000_000, until ?? 9_000_000_000_000_000) }

    /// The parameters as shown in outputs (only those set or defaulted by the report).
    func shown(for def: ReportDefinition) -> [(String, SQLValue)] {
        let defaults = def.paramDefaults
        return def.params.map { param in
            switch param.name {
            case "since": return ("since", since.map { .text(TimeFormat.rfc3339(ms: $0)) } ?? .null)
            case "until": return ("until", until.map { .text(TimeFormat.rfc3339(ms: $0)) } ?? .null)
            case "week": return ("week", week.map { .text($0) } ?? .null)
            // A report whose buckets come only with --by has none to show without it.
            case "by" where by == nil && defaults["by"] == nil: return ("by", .null)
            default: return (param.name, value(param.name, defaults: defaults))
            }
        }
    }
}

extension ReportDefinition {
    /// The defaults the header declares (`-- param: by enum(...) = week`).
    public var paramDefaults: [String: String] {
        var d: [String: String] = [:]
        for p in params { if let v = p.defaultValue { d[p.name] = v } }
        return d
    }

    public var paramNames: [String] { params.map(\.name) }

    /// The parameters of this report's own (`ReportParameter.isOwn`): an option each, for this report only.
    public var ownParams: [ReportParameter] { params.filter(\.isOwn) }

    /// `params` with each own parameter that was not given set to its declared default.
    func withDefaults(_ params: ReportParams) -> ReportParams {
        var p = params
        for param in ownParams where p.own[param.name] == nil {
            if let d = param.defaultValue, let v = param.bound(d) { p.own[param.name] = v }
        }
        return p
    }

    /// The declared parameter `name`.
    public func parameter(_ name: String) -> ReportParameter? { params.first { $0.name == name } }

    /// The `--by` values this report takes (its `by` parameter's enum); nil when it has no `by`.
    public var byValues: [String]? { parameter("by")?.type.allowed }
}
