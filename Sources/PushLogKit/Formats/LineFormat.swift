/// What a format parser made of one line.
enum ParseOutcome {
    /// `builder.event` holds a valid record.
    case event
    /// The line is bad; the reason goes to the rejects table.
    case reject(RejectReason)
    /// A record of another platform (Android, web push): counted as skipped.
    case skip
    /// Not a record at all (banners, access-log lines, a CSV header): counted as ignored.
    case ignore
    /// Part of a record that spans lines (pretty-printed JSON, a quoted CSV field): wait for more.
    case pending
    /// A daily aggregate (Apple's delivery metrics), not an event.
    case metric(day: String, pushType: String, status: String, count: Int64)
    /// The line holds several records (a result summary, an API response): `nextEntry()` hands
    /// them out one at a time.
    case many
}

/// A parser for one input format. One instance per file: formats such as CSV keep state (the header).
protocol LineFormat: AnyObject {
    var name: String { get }
    func parse(_ line: ByteSlice, number: Int) -> ParseOutcome
    /// For records spanning lines: the record's bytes (its identity) and its first line number.
    var spanned: (bytes: ByteSlice, firstLine: Int)? { get }
    /// At the end of the input: a record still open (its first line, first bytes, and why), if any.
    func endOfInput() -> (line: Int, bytes: [UInt8], reason: RejectReason)?
    /// After `.many`: the next record of the line (`builder.event` holds it on `.event`), nil after the last.
    func nextEntry() -> ParseOutcome?
}

extension LineFormat {
    var spanned: (bytes: ByteSlice, firstLine: Int)? { nil }
    func endOfInput() -> (line: Int, bytes: [UInt8], reason: RejectReason)? { nil }
    func nextEntry() -> ParseOutcome? { nil }
}
