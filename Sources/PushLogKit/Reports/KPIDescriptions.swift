/// What a person reads for each KPI of the weekly report: the HTML page shows these labels (JSON
/// and CSV keep the machine names). Which way is good comes from KPIDirection, as on a terminal.
struct KPIDescription: Sendable {
    let metric: String
    let label: String

    static let labels: [String: String] = [
        "responses": "APNs responses",
        "accepted_share": "Accepted by APNs",
        "gone_rate": "Gone (410) rate",
        "tokens_gone": "Tokens retired by APNs",
        "sends_after_gone": "Sends to tokens already gone",
        "mismatched_sends": "Sends to the wrong APNs env",
        "bad_device_token": "BadDeviceToken responses",
        "malformed_token_sends": "Sends to malformed tokens",
        "over_budget_share": "Background pushes over budget",
        "too_many_requests": "Throttled (429) responses",
        "auth_errors": "Auth errors (JWT/certificate)",
        "turn_off_rate": "Devices turning notifications off",
        "turned_off_share": "Opted-in devices that turned off",
        "rotation_rate": "Devices that rotated their token",
        "superseded_sends": "Sends to replaced tokens",
        "rejects": "Rejected log lines",
        // Chart series of the weekly trends.
        "over_budget_sends": "Background pushes over budget",
    ]

    /// The description of a KPI; an unknown one reads as its name with spaces. The opt-out
    /// figures count `unit`s (devices, or users with --unit user) and say which.
    static func of(_ metric: String, unit: String = "device") -> KPIDescription {
        if var l = labels[metric] {
            if unit == "user" {
                l = l.replacingOccurrences(of: "Devices", with: "Users").replacingOccurrences(of: "devices", with: "users")
            }
            return KPIDescription(metric: metric, label: l)
        }
        let words = metric.replacingOccurrences(of: "_", with: " ")
        return KPIDescription(metric: metric, label: words.prefix(1).uppercased() + words.dropFirst())
    }

    /// "good", "bad" or "flat" for a change of `delta` in this KPI.
    func verdict(_ delta: Double) -> String {
        let sign = KPIDirection.sign(metric)
        if delta == 0 || sign == 0 { return "flat" }
        return (delta > 0) == (sign > 0) ? "good" : "bad"
    }
}
