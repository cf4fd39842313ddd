/// A file holding one JSON array of records, or pretty-printed objects one after another (as
/// documentation and `jq .` show them): objects are collected across lines by brace depth and
/// each is read as one record, identified by its bytes, numbered by its first line.
final class JSONDocumentFormat: LineFormat {
    let name = "json-document"
    let inner: LineFormat
    let buffer = RecordBuffer()
    var depth = 0
    var inString = false
    var escaped = false
    var firstLine = 0
    /// Hands the inner format's results on with the collected object as their record.
    let spanning = SpanningSink()

    /// `inner` reads each collected object (the canonical schema or another tool's JSON shape).
    init(inner: LineFormat) { self.inner = inner }

    func finish(into sink: RecordSink) {
        guard depth > 0 else { return }
        depth = 0
        sink.reject(.jsonRecordNotClosed, RecordSpan(bytes: ByteSlice(rebasing: buffer.slice.prefix(512)), firstLine: firstLine))
    }

    func parse(_ line: ByteSlice, number: Int, lineTime: Int64?, into sink: RecordSink) {
        var complete = false
        for c in line {
            if depth == 0 {
                // Between records: array brackets, commas and whitespace.
                if c == 0x7B { depth = 1; buffer.reset(); buffer.append(c); firstLine = number; inString = false; continue }
                if c == 0x5B || c == 0x5D || c == 0x2C || c == 0x20 || c == 0x09 || c == 0x0D { continue }
                return sink.reject(.textBetweenJSONRecords)
            }
            buffer.append(c)
            if inString {
                if escaped { escaped = false } else if c == 0x5C { escaped = true } else if c == 0x22 { inString = false }
                continue
            }
            if c == 0x22 {
                inString = true
            } else if c == 0x7B || c == 0x5B {
                depth += 1
            } else if c == 0x7D || c == 0x5D {
                depth -= 1
                if depth == 0 { complete = true }
            }
        }
        if depth > 0 {
            buffer.append(0x20)
            if buffer.count > LineReader.maxLineBytes { depth = 0; buffer.reset(); return sink.reject(.jsonRecordTooLong) }
            return  // pending: the object goes on in the next line
        }
        guard complete else { return sink.ignore() }
        spanning.target = sink
        spanning.span = RecordSpan(bytes: buffer.slice, firstLine: firstLine)
        defer { spanning.target = nil }
        inner.parse(buffer.slice, number: firstLine, lineTime: lineTime, into: spanning)
    }
}

/// Passes a format's results on to another sink as results of one record spanning lines: what
/// a format reads from a record it collected is identified by the whole record.
final class SpanningSink: RecordSink {
    /// The sink the results go to, during one `parse`.
    var target: RecordSink?
    var span: RecordSpan?

    var builder: EventBuilder { target!.builder }
    func record(_ span: RecordSpan?) { target!.record(span ?? self.span) }
    func reject(_ reason: RejectReason, _ span: RecordSpan?) { target!.reject(reason, span ?? self.span) }
    func skip() { target!.skip() }
    func ignore() { target!.ignore() }
    func metric(_ count: DailyCount) { target!.metric(count) }
    func entries(_ entries: [BundledRecord], of span: RecordSpan?, lineTime: Int64?) {
        target!.entries(entries, of: span ?? self.span, lineTime: lineTime)
    }
}
