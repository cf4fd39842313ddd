import Foundation

/// What the parsing thread made of one line, ready for the writer.
struct ParsedItem {
    enum Kind { case event, reject, skip, ignore, pending, metric, blank }
    var kind: Kind
    var event = Event()
    var hash: (Int64, Int64) = (0, 0)
    /// An event's occurrence among identical records of its file (`hash` has it mixed in).
    var occurrence: Int32 = 0
    /// The line the occurrence counter placed it at (its last line; a packed entry's line too).
    var countedLine = 0
    /// The record's line number (the first line of a record spanning lines).
    var recordLine = 0
    /// The physical line and the stream offset after it: the resume position once committed.
    var lineNumber = 0
    var endOffset: Int64 = 0
    var reason: RejectReason = .emptyLine  // set with kind .reject
    /// A reject's stored identity as it was before file context was mixed in.
    var legacyHash: Int64 = 0
    var text = ""
    /// False for a reject past its file's `RejectTextBound`: counted, its text never made.
    var textKept = true
    var metric: (day: String, pushType: String, status: String, count: Int64)?
}
