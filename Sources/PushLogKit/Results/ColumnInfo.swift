/// What a column of a report (or a KPI of a KPI page) means, as the report's header declares it
/// (`-- column: NAME ROLE [better=…] [unit=…] [per=bucket] [over=COLUMN] [needs=…]  LABEL`): how tables
/// format it, how `--compare` matches and compares rows, how an empty bucket fills it, and how
/// the HTML page labels and colours it.
public struct ColumnInfo: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        /// Identifies a row: matched between two ranges by `--compare`, empty in a filled bucket.
        case key
        /// A number of things: compared, 0 in an empty bucket.
        case count
        /// A fraction: shown as a percentage, its change in percentage points, empty in an empty bucket.
        case rate
        /// A measure that is not a count (a median, a duration): compared, empty in an empty bucket.
        case number
        /// A point in time, as text.
        case time
        case text
    }

    /// Which way a change of the figure is good news.
    public enum Better: String, Sendable, CaseIterable {
        case up, down
        /// Volume: neither good nor bad.
        case none
    }

    public var role: Role
    /// Most figures count trouble, so by default up is bad.
    public var better: Better = .down
    /// What the figure counts (`responses`, `tokens`, `{unit}s`), for people reading it.
    public var unit: String?
    /// What a person reads for it on the page; `{units}` / `{Units}` stand for the `unit` parameter.
    public var label: String?
    /// A figure of the whole bucket, repeated on each of the bucket's rows.
    public var perBucket = false
    /// For a rate: the per-bucket figure it is a share of.
    public var over: String?
    /// What the figure needs the records to carry (`needs=env,token`): where the range's records
    /// lack it, the figure is not observable.
    public var needs: [RecordNeed] = []

    public init(role: Role) { self.role = role }

    /// An undeclared column (ad-hoc queries, and report files written before headers declared
    /// columns) read by the naming conventions reports have always used: a rate when named so
    /// (`_rate`, `_share`), a key when it names what a row is about (`bucket`, `topic`, `status`,
    /// …), `median*` a number, `first_seen`/`last_seen` times, else a count (where a count is
    /// not wanted, text values are never filled or compared as one). Which way is good follows
    /// the same conventions (`accepted*`, receipts and still-on shares up; volumes neither).
    public static func inferred(_ name: String) -> ColumnInfo {
        var info: ColumnInfo
        if name.hasSuffix("_rate") || name.hasSuffix("_share") || name == "share" || name == "rate_fraction" {
            info = ColumnInfo(role: .rate)
        } else if conventionalKeys.contains(name) {
            info = ColumnInfo(role: .key)
        } else if name.hasPrefix("median") {
            info = ColumnInfo(role: .number)
        } else if name == "first_seen" || name == "last_seen" {
            info = ColumnInfo(role: .time)
        } else {
            info = ColumnInfo(role: .count)
        }
        if conventionallyUp.contains(name) {
            info.better = .up
        } else if conventionalVolumes.contains(name) {
            info.better = .none
        }
        return info
    }

    static let conventionalKeys: Set<String> = [
        "bucket", "status", "reason", "category", "registered_env", "sent_env", "app_version", "rate", "cohort", "topic", "env",
        "push_type", "day",
    ]
    static let conventionallyUp: Set<String> = ["accepted_share", "accepted", "receipt_rate", "still_on_7d_share", "still_on_30d_share"]
    static let conventionalVolumes: Set<String> = [
        "responses", "background_sends", "active_devices", "new_tokens", "opted_in", "on_at_start", "token_hours", "checked",
    ]

    /// +1 when an increase is good, -1 when it is bad, 0 for volume.
    var sign: Int {
        switch better {
        case .up: return 1
        case .down: return -1
        case .none: return 0
        }
    }

    /// "good", "bad" or "flat" for a change of `delta`.
    func verdict(_ delta: Double) -> String {
        if delta == 0 || sign == 0 { return "flat" }
        return (delta > 0) == (sign > 0) ? "good" : "bad"
    }

    /// The ANSI colour of a change `d`: green good, red bad, none for 0 or volume.
    func ansi(change d: Double) -> String? {
        guard sign != 0, d != 0 else { return nil }
        return (d > 0) == (sign > 0) ? "\u{1B}[32m" : "\u{1B}[31m"
    }

    /// The label for a page counting `unit`s (device or user); an undeclared one reads as its
    /// name with spaces.
    func label(for name: String, unit: String) -> String {
        guard let label else { return ColumnInfo.words(name) }
        let units = unit + "s"
        return label.replacingOccurrences(of: "{units}", with: units)
            .replacingOccurrences(of: "{Units}", with: units.prefix(1).uppercased() + units.dropFirst())
    }

    /// A machine name as a person reads it: `response_share` → `Response share`.
    static func words(_ name: String) -> String {
        let words = name.replacingOccurrences(of: "_", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}
