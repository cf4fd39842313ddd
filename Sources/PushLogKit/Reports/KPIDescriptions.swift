/// What a person reads for each KPI of the weekly report, and which way is good: the HTML page
/// shows these labels (JSON and CSV keep the machine names) and colours the change by them.
public enum KPIDirection: Sendable {
    case higherIsBetter, lowerIsBetter, neutral
}

public struct KPIDescription: Sendable {
    public let label: String
    public let direction: KPIDirection

    static let known: [String: KPIDescription] = [
        "responses": .init(label: "APNs responses", direction: .neutral),
        "accepted_share": .init(label: "Accepted by APNs", direction: .higherIsBetter),
        "gone_rate": .init(label: "Gone (410) rate", direction: .lowerIsBetter),
        "tokens_gone": .init(label: "Tokens retired by APNs", direction: .lowerIsBetter),
        "sends_after_gone": .init(label: "Sends to tokens already gone", direction: .lowerIsBetter),
        "mismatched_sends": .init(label: "Sends to the wrong APNs env", direction: .lowerIsBetter),
        "bad_device_token": .init(label: "BadDeviceToken responses", direction: .lowerIsBetter),
        "malformed_token_sends": .init(label: "Sends to malformed tokens", direction: .lowerIsBetter),
        "over_budget_share": .init(label: "Background pushes over budget", direction: .lowerIsBetter),
        "too_many_requests": .init(label: "Throttled (429) responses", direction: .lowerIsBetter),
        "auth_errors": .init(label: "Auth errors (JWT/certificate)", direction: .lowerIsBetter),
        "turn_off_rate": .init(label: "Users turning notifications off", direction: .lowerIsBetter),
        "turned_off_share": .init(label: "Opted-in users who turned off", direction: .lowerIsBetter),
        "rotation_rate": .init(label: "Devices that rotated their token", direction: .neutral),
        "superseded_sends": .init(label: "Sends to replaced tokens", direction: .lowerIsBetter),
        "rejects": .init(label: "Rejected log lines", direction: .lowerIsBetter),
        // Chart series of the weekly trends.
        "over_budget_sends": .init(label: "Background pushes over budget", direction: .lowerIsBetter),
    ]

    /// The description of a KPI; an unknown one reads as its name with spaces, with no direction.
    public static func of(_ metric: String) -> KPIDescription {
        if let d = known[metric] { return d }
        let words = metric.replacingOccurrences(of: "_", with: " ")
        return KPIDescription(label: words.prefix(1).uppercased() + words.dropFirst(), direction: .neutral)
    }

    /// "good", "bad" or "flat" for a change of `delta` in this KPI.
    public func verdict(_ delta: Double) -> String {
        if delta == 0 || direction == .neutral { return "flat" }
        return (delta > 0) == (direction == .higherIsBetter) ? "good" : "bad"
    }
}
