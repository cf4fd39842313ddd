/// Which rejected lines of one file keep their text: the first 1,000 of each reason, and 10,000
/// in all. Every reject is counted (a file's `rejects` in `sources`); past the bound it is only
/// counted, so one junk line repeated two million times adds its count, not two million rows.
public struct RejectTextBound {
    static let perReason = 1_000
    static let perFile = 10_000
    /// The rule in words, for the notes that say some rejects were only counted.
    public static let rule = "a file keeps the text of its first 1,000 rejected lines of each reason, 10,000 in all"

    private var byReason: [String: Int]
    private var total: Int

    /// `stored`: the texts of the file already kept, by reason (from an earlier run).
    init(stored: [String: Int] = [:]) {
        byReason = stored
        total = stored.values.reduce(0, +)
    }

    /// True when the text of one more reject of `reason` is kept (and counts it as kept).
    mutating func keep(_ reason: String) -> Bool {
        let n = byReason[reason, default: 0]
        guard n < RejectTextBound.perReason && total < RejectTextBound.perFile else { return false }
        byReason[reason] = n + 1
        total += 1
        return true
    }
}
