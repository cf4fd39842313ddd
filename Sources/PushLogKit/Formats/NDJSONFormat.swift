/// The canonical schema: one JSON object per line, optionally after a prefix such as a
/// CloudWatch or docker timestamp (`2026-11-02T08:15:03.120Z {...}`) whose time is used
/// when the object has none. A line the canonical reader rejects is tried as another tool's
/// JSON shape (node-apn results, Expo, Braze, Pinpoint: `PackedShapes`) before it is rejected.
final class NDJSONFormat: LineFormat {
    let name = "ndjson"
    let builder: EventBuilder
    let json: JSONLineParser
    let packed = PackedEntries()

    init(builder: EventBuilder) {
        self.builder = builder
        json = JSONLineParser(builder: builder)
    }

    func nextEntry() -> ParseOutcome? { packed.take(builder) }

    func parse(_ line: ByteSlice, number: Int) -> ParseOutcome {
        guard let p = line.baseAddress else { return .ignore }
        var i = 0
        while i < line.count && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
        if i < line.count && p[i] == 0x7B {
            builder.reset()
            if let r = json.scan(ByteSlice(rebasing: line[i...])) { return otherShape(line, i, nil, reject: r) }
            if let r = builder.finish() { return otherShape(line, i, nil, reject: r) }
            return .event
        }
        // JSON after a prefix.
        guard let brace = line.firstIndex(of: 0x7B) else { return .reject(.notJSONObject) }
        builder.reset()
        let prefixTime = PrefixTime.find(ByteSlice(rebasing: line[..<brace]))
        if let r = json.scan(ByteSlice(rebasing: line[brace...])) { return otherShape(line, brace, prefixTime, reject: r) }
        if builder.event.time == nil && builder.topTimestamp == nil {
            builder.event.time = prefixTime
        }
        if let r = builder.finish() { return otherShape(line, brace, prefixTime, reject: r) }
        return .event
    }

    /// The records of another tool's shape in the object at `start`, or the canonical reject.
    func otherShape(_ line: ByteSlice, _ start: Int, _ prefixTime: Int64?, reject: RejectReason) -> ParseOutcome {
        guard let v = JSONValue.parse(ByteSlice(rebasing: line[start...])),
            let entries = PackedShapes.entries(v, time: prefixTime.map { String($0) }, lineTime: builder.lineTime != nil)
        else { return .reject(reject) }
        packed.load(entries)
        return .many
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
