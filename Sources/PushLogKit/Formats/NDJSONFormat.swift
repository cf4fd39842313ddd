/// The canonical schema: one JSON object per line, optionally after a prefix such as a
/// CloudWatch or docker timestamp (`2026-11-02T08:15:03.120Z {...}`) whose time is used
/// when the object has none. A line the canonical reader rejects is tried as another tool's
/// JSON shape (node-apn results, Expo, Braze, Pinpoint: `ToolRecordShapes`) before it is rejected.
final class NDJSONFormat: LineFormat {
    let name = "ndjson"

    init() {}

    func parse(_ line: ByteSlice, number: Int, lineTime: Int64?, into sink: RecordSink) {
        guard let p = line.baseAddress else { return sink.ignore() }
        let builder = sink.builder
        let json = JSONLineParser(builder: builder)
        var i = 0
        while i < line.count && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
        if i < line.count && p[i] == 0x7B {
            builder.reset()
            if let r = json.scan(ByteSlice(rebasing: line[i...])) ?? builder.finish(lineTime: lineTime) {
                return otherShape(line, i, nil, lineTime, sink, reject: r)
            }
            return sink.record()
        }
        // JSON after a prefix.
        guard let brace = line.firstIndex(of: 0x7B) else { return sink.reject(.notJSONObject) }
        builder.reset()
        let prefixTime = PrefixTime.find(ByteSlice(rebasing: line[..<brace]))
        if let r = json.scan(ByteSlice(rebasing: line[brace...])) { return otherShape(line, brace, prefixTime, lineTime, sink, reject: r) }
        if builder.event.time == nil && builder.topTimestamp == nil {
            builder.event.time = prefixTime
        }
        if let r = builder.finish(lineTime: lineTime) { return otherShape(line, brace, prefixTime, lineTime, sink, reject: r) }
        sink.record()
    }

    /// Reports the records of another tool's shape in the object at `start`, or the canonical reject.
    func otherShape(_ line: ByteSlice, _ start: Int, _ prefixTime: Int64?, _ lineTime: Int64?, _ sink: RecordSink, reject: RejectReason) {
        guard let v = JSONValue.parse(ByteSlice(rebasing: line[start...])),
            let entries = ToolRecordShapes.entries(v, time: prefixTime.map { String($0) }, lineTime: lineTime != nil)
        else { return sink.reject(reject) }
        sink.entries(entries, of: nil, lineTime: lineTime)
    }
}

/// Finds a time in a log-line prefix: the first token (or two, for `date time`) that parses.
enum PrefixTime {
    static func find(_ prefix: ByteSlice) -> Int64? {
        let words = prefix.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x5B || $0 == 0x5D })
        for (k, w) in words.enumerated() {
            if k + 1 < words.count {
                let joined = Array(w) + [0x20] + Array(words[k + 1])
                if let t = joined.withUnsafeBufferPointer({ TimeParser.parse($0) }), w.count == 10 { return t }
            }
            if w.count >= 10, let t = TimeParser.parse(ByteSlice(rebasing: w)) {
                return t
            }
        }
        return nil
    }
}
