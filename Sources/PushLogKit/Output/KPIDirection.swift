/// Whether a move of a figure is good or bad news, for colouring changes (tables on a terminal,
/// the HTML page): most figures count trouble, so up is bad.
enum KPIDirection {
    /// Figures where higher is better.
    static let higherIsBetter: Set<String> = ["accepted_share", "accepted", "receipt_rate", "still_on_7d_share", "still_on_30d_share"]
    /// Figures that are volume, neither good nor bad.
    static let neutral: Set<String> = [
        "responses", "background_sends", "active_devices", "new_tokens", "opted_in", "on_at_start", "token_hours", "checked",
    ]

    /// +1 when an increase is good, -1 when it is bad, 0 for volume.
    static func sign(_ name: String) -> Int {
        if neutral.contains(name) { return 0 }
        return higherIsBetter.contains(name) ? 1 : -1
    }

    /// The ANSI colour of a change `d` of figure `name`: green good, red bad, none for 0 or volume.
    static func ansi(_ name: String, change d: Double) -> String? {
        let s = sign(name)
        guard s != 0, d != 0 else { return nil }
        return (d > 0) == (s > 0) ? "\u{1B}[32m" : "\u{1B}[31m"
    }
}
