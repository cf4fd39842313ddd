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
    private(set) var spanned: (bytes: ByteSlice, firstLine: Int)?

    /// `inner` reads each collected object (the canonical schema or another tool's JSON shape).
    init(inner: LineFormat) { self.inner = inner }

    func nextEntry() -> ParseOutcome? { inner.nextEntry() }

    func endOfInput() -> (line: Int, bytes: [UInt8], reason: RejectReason)? {
        guard depth > 0 else { return nil }
        depth = 0
        return (firstLine, Array(buffer.slice.prefix(512)), .jsonRecordNotClosed)
    }

    func parse(_ line: ByteSlice, number: Int) -> ParseOutcome {
        spanned = nil
        var complete = false
        for c in line {
            if depth == 0 {
                // Between records: array brackets, commas and whitespace.
                if c == 0x7B { depth = 1; buffer.reset(); buffer.append(c); firstLine = number; inString = false; continue }
                if c == 0x5B || c == 0x5D || c == 0x2C || c == 0x20 || c == 0x09 || c == 0x0D { continue }
                return .reject(.textBetweenJSONRecords)
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
            if buffer.count > LineReader.maxLineBytes { depth = 0; buffer.reset(); return .reject(.jsonRecordTooLong) }
            return .pending
        }
        guard complete else { return .ignore }
        spanned = (buffer.slice, firstLine)
        return inner.parse(buffer.slice, number: firstLine)
    }
}
