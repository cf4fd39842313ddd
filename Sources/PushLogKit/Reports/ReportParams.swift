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

    public init(
        since: Int64? = nil, until: Int64? = nil, by: String? = nil, topic: String? = nil, env: String? = nil,
        budget: Int64? = nil, unit: String? = nil, week: String? = nil, limit: Int64? = nil, rule: String? = nil
    ) {
        self.since = since; self.until = until; self.by = by; self.topic = topic; self.env = env
        self.budget = budget; self.unit = unit; self.week = week; self.limit = limit; self.rule = rule
    }

    /// The value bound to `:name`, with `defaults` from the report header.
    func value(_ name: String, defaults: [String: String]) -> SQLValue {
        switch name {
        case "since": return since.map { .int($0) } ?? .int(-9_000_000_000_000_000)
        case "until": return until.map { .int($0) } ?? .int(9_000_000_000_000_000)
        case "by": return .text(by ?? defaults["by"] ?? "day")
        case "topic": return topic.map { .text($0) } ?? .null
        case "env": return env.map { .text($0) } ?? .null
        case "budget": return .int(budget ?? Int64(defaults["budget"] ?? "3") ?? 3)
        case "unit": return .text(unit ?? defaults["unit"] ?? "device")
        case "limit": return .int(limit ?? Int64(defaults["limit"] ?? "10") ?? 10)
        case "rule": return rule.map { .text($0) } ?? .null
        default: return .null
        }
    }

    /// The parameters as shown in outputs (only those set or defaulted by the report).
    func shown(for def: ReportDefinition) -> [(String, SQLValue)] {
        var defaults: [String: String] = [:]
        for (k, v) in def.paramDefaults { defaults[k] = v }
        var out: [(String, SQLValue)] = []
        for (name, _) in def.params {
            let key = name.split(separator: "=").first.map(String.init) ?? name
            var v = value(key, defaults: defaults)
            if key == "since" { v = since.map { .text(TimeFormat.rfc3339(ms: $0)) } ?? .null }
            if key == "until" { v = until.map { .text(TimeFormat.rfc3339(ms: $0)) } ?? .null }
            if key == "week" { v = week.map { .text($0) } ?? .null }
            out.append((key, v))
        }
        return out
    }
}

extension ReportDefinition {
    /// Defaults declared as `-- param: by=week ...`.
    public var paramDefaults: [String: String] {
        var d: [String: String] = [:]
        for (p, _) in params {
            let kv = p.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { d[String(kv[0])] = String(kv[1]) }
        }
        return d
    }

    public var paramNames: [String] { params.map { $0.0.split(separator: "=").first.map(String.init) ?? $0.0 } }
}

extension ReportDefinition {
    /// Time units and dimensions `--by` may take in reports.
    static let byWords: Set<String> = ["minute", "5m", "hour", "day", "week", "topic", "env", "app_version", "push_type", "reason"]

    /// The `--by` values this report takes, read from its `-- param: by=… help` line (the help
    /// lists them); nil when the report has no `by` parameter.
    public var byValues: [String]? {
        guard let (_, help) = params.first(where: { $0.0 == "by" || $0.0.hasPrefix("by=") }) else { return nil }
        let words = help.split(whereSeparator: { $0 == " " || $0 == "," || $0 == ":" || $0 == "|" || $0 == "(" || $0 == ")" })
            .map(String.init).filter { ReportDefinition.byWords.contains($0) }
        return words.isEmpty ? nil : words
    }
}
