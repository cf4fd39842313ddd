/// What a format parser made of one line.
public enum ParseOutcome {
    /// `builder.event` holds a valid record.
    case event
    /// The line is bad; the reason goes to the rejects table.
    case reject(String)
    /// A record of another platform (Android, web push): counted as skipped.
    case skip
    /// Not a record at all (banners, access-log lines, a CSV header): counted as ignored.
    case ignore
}

/// A parser for one input format. One instance per file: formats such as CSV keep state (the header).
public protocol LineFormat: AnyObject {
    var name: String { get }
    func parse(_ line: ByteSlice, number: Int) -> ParseOutcome
}
