/// A parser for one input format, in the shape of swift-nio's `ByteToMessageDecoder`: it gets
/// each line and a sink, reports what the line holds by calling the sink zero or more times, and
/// reports a record still open when the input ends in `finish`.
///
/// One instance per file: formats such as CSV keep state between lines (the header, a record that
/// spans lines). Ownership: the line's bytes belong to the caller and are valid only during
/// `parse`; the record being built (`sink.builder`, with the arena holding unescaped strings)
/// belongs to the sink, which takes what it needs from it before `record` returns. A format keeps
/// the bytes of a record spanning lines in its own buffer until it reports that record.
protocol LineFormat: AnyObject {
    var name: String { get }
    /// Reads one line. `lineTime` is the time of the line's prefix (syslog), for a record that
    /// has none. A line that reports nothing is part of a record still open (pending).
    func parse(_ line: ByteSlice, number: Int, lineTime: Int64?, into sink: RecordSink)
    /// At the end of the input: reports a record still open as a reject, if there is one.
    func finish(into sink: RecordSink)
}

extension LineFormat {
    func finish(into sink: RecordSink) {}
}

/// Where a format reports what it read from a line. Each call is one result; a line may give
/// none (a part of a record that spans lines), one, or several (`entries`).
protocol RecordSink: AnyObject {
    /// The record under construction, owned by the sink: a format resets it, assigns the line's
    /// values and `finish`es it, then calls `record`. Its bytes stay valid until the next reset.
    var builder: EventBuilder { get }
    /// `builder.event` holds a valid record. `span` is given when the record spans lines (its
    /// bytes are then its identity, and its first line its position); nil means this line.
    func record(_ span: RecordSpan?)
    /// The record is bad; the reason goes to the rejects table.
    func reject(_ reason: RejectReason, _ span: RecordSpan?)
    /// A record of another platform (Android, web push): counted as skipped.
    func skip()
    /// Not a record at all (banners, access-log lines, a CSV header): counted as ignored.
    func ignore()
    /// A daily aggregate (Apple's delivery metrics), not an event.
    func metric(_ count: DailyCount)
    /// The record holds several (a result summary, an API response): each entry is built and
    /// validated like a record of its own line, and identified by its place in the record.
    func entries(_ entries: [BundledRecord], of span: RecordSpan?, lineTime: Int64?)
}

extension RecordSink {
    func record() { record(nil) }
    func reject(_ reason: RejectReason) { reject(reason, nil) }
}

/// The bytes and first line of a record that spans lines (a pretty-printed object, a CSV field
/// with line breaks). The bytes are the format's and valid only during the call that hands them.
struct RecordSpan {
    let bytes: ByteSlice
    let firstLine: Int
}

/// One figure of Apple's daily delivery metrics.
struct DailyCount: Equatable {
    let day: String
    let pushType: String
    let status: String
    let count: Int64
}
