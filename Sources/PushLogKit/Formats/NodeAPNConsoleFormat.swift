/// node-apn results as `console.log(result)` prints them (Node's util.inspect): single quotes,
/// unquoted keys, statuses as strings (`status: '400'`), `[Object]` past the second level, often
/// over several lines:
///
///     2026-11-02T09:00:00.000Z { sent: [],
///       failed: [ { device: '3f2a…', status: '410', response: [Object] } ] }
///
/// The whole result, its `failed` array or one entry are read (one send per entry, as
/// `NodeAPNResult`), and node-apn 1.x's "Notification caused error: CODE for device { token:
/// <Buffer …> }", with the time of the first line's prefix; lines outside a value are passed over. A value is collected across lines by bracket depth and identified by its bytes.
final class NodeAPNConsoleFormat: LineFormat {
    let name = "node-apn-console"
    let buffer = RecordBuffer()
    var depth = 0
    var quote: UInt8 = 0
    var escaped = false
    var firstLine = 0
    var prefixTime: Int64?
    /// node-apn 1.x's `transmissionError` as its documented handler prints it, "Notification
    /// caused error: 8 for device Device { token: <Buffer …> } …": the legacy code before the value.
    var legacyCode: String?

    init() {}

    func finish(into sink: RecordSink) {
        guard depth > 0 else { return }
        depth = 0
        sink.reject(.jsonRecordNotClosed, RecordSpan(bytes: ByteSlice(rebasing: buffer.slice.prefix(512)), firstLine: firstLine))
    }

    /// The code in "caused error: CODE for device", if the text says so.
    static func legacyCode(_ prefix: String) -> String? {
        guard let r = prefix.range(of: "caused error: ") else { return nil }
        let code = prefix[r.upperBound...].prefix { $0.isNumber }
        guard !code.isEmpty, prefix[r.upperBound...].dropFirst(code.count).hasPrefix(" for device") else { return nil }
        return String(code)
    }

    /// A result logged inside another object (`{ result: { sent: [...], failed: [...] } }`), one
    /// or two levels down.
    static func nestedResult(_ v: JSONValue, depth: Int = 0) -> JSONValue? {
        guard depth < 2, case .object(let kv) = v else { return nil }
        for (_, inner) in kv {
            if inner.first("sent") != nil || inner.first("failed") != nil { return inner }
            if let found = nestedResult(inner, depth: depth + 1) { return found }
        }
        return nil
    }

    func parse(_ line: ByteSlice, number: Int, lineTime: Int64?, into sink: RecordSink) {
        var start = 0
        if depth == 0 {
            guard let open = line.firstIndex(where: { $0 == 0x7B || $0 == 0x5B }) else { return sink.ignore() }
            let prefix = ByteSlice(rebasing: line[..<open])
            prefixTime = PrefixTime.find(prefix)
            legacyCode = NodeAPNConsoleFormat.legacyCode(String(decoding: prefix, as: UTF8.self))
            start = open
            buffer.reset()
            firstLine = number
            quote = 0
        } else {
            buffer.append(0x0A)
        }
        var end = line.count
        var i = start
        while i < line.count {
            let c = line[i]
            i += 1
            if quote != 0 {
                if escaped { escaped = false } else if c == 0x5C { escaped = true } else if c == quote { quote = 0 }
                continue
            }
            if c == 0x27 || c == 0x22 {
                quote = c
            } else if c == 0x7B || c == 0x5B {
                depth += 1
            } else if c == 0x7D || c == 0x5D {
                depth -= 1
                if depth == 0 { end = i; break }
            }
        }
        buffer.append(ByteSlice(rebasing: line[start..<end]))
        if depth > 0 {
            if buffer.count > LineReader.maxLineBytes { depth = 0; buffer.reset(); return sink.reject(.jsonRecordTooLong) }
            return  // pending: the value goes on in the next line
        }
        depth = 0
        let span = firstLine != number ? RecordSpan(bytes: buffer.slice, firstLine: firstLine) : nil
        guard let v = JSONValue.parseInspected(buffer.slice) else { return sink.ignore() }
        let time = prefixTime.map { String($0) }
        let when = ToolRecordTime(time: time, fromLine: lineTime != nil)
        var entries: [BundledRecord]
        if let code = legacyCode, let token = v.first("token")?.string, !token.isEmpty {
            entries = [NodeAPNResult.entry(.object([("device", .string(token)), ("status", .number(code))]), sent: false, when)]
        } else if let all = NodeAPNResult.entries(v, when)
            ?? NodeAPNConsoleFormat.nestedResult(v).flatMap({ NodeAPNResult.entries($0, when) })
        {
            entries = all
        } else if case .array(let list) = v, !list.isEmpty, list.allSatisfy({ $0.first("sent") != nil || $0.first("failed") != nil }) {
            entries = list.flatMap { NodeAPNResult.entries($0, when) ?? [] }
        } else if case .array(let list) = v, !list.isEmpty, list.allSatisfy({ $0.first("device") != nil }) {
            entries = list.map { NodeAPNResult.entry($0, sent: false, when) }
        } else if v.first("device") != nil, v.first("status") != nil || v.first("error") != nil {
            entries = [NodeAPNResult.entry(v, sent: false, when)]
        } else {
            return sink.ignore()
        }
        sink.entries(entries, of: span, lineTime: lineTime)
    }
}
