import Foundation

/// What detection made of a file's first lines.
enum Detection {
    /// The file's format, and the syslog prefix its lines carry, if any.
    case format(LineFormat, prefix: SyslogPrefix?)
    /// Not a log pushlog can read ("no known format; first line: …"): refused whole.
    case refused(String)
}

/// Picks a file's format from its first lines, or makes the one a user forced.
public enum FormatDetector {
    /// The built-in formats a user may name (`json` and `sns-document` are accepted, not listed).
    public static let names =
        ([.ndjson, .jsonDocument, .logfmt, .csv, .sns, .gorush, .nodeAPN, .nodeAPNConsole, .appleMetrics] as [BuiltInFormat])
        .map(\.rawValue)
    /// Lines looked at: a file none of whose first 1,000 lines is a record of a known format is refused.
    static let sampleLines = 1000

    /// The reader of a named format (a stored `sources.format`, a detection candidate); nil for an unknown name.
    static func make(_ name: String, library: FormatLibrary = FormatLibrary()) -> LineFormat? {
        make(InputFormat(name, library: library), library: library)
    }

    /// The reader of `format`; nil for a defined format the library does not hold.
    static func make(_ format: InputFormat, library: FormatLibrary = FormatLibrary()) -> LineFormat? {
        switch format {
        case .defined(let name): return library.definition(name).map { DefinedFormat($0) }
        case .builtIn(let b):
            switch b {
            case .ndjson, .json, .nodeAPN: return NDJSONFormat()
            case .jsonDocument: return JSONDocumentFormat(inner: NDJSONFormat())
            case .snsDocument: return JSONDocumentFormat(inner: SNSFormat())
            case .logfmt: return LogfmtFormat()
            case .csv: return CSVFormat()
            case .sns: return SNSFormat()
            case .gorush: return GorushFormat()
            case .nodeAPNConsole: return NodeAPNConsoleFormat()
            case .appleMetrics: return AppleMetricsFormat()
            }
        }
    }

    /// Looks at the first lines of `head` (the start of the file after decompression): the format
    /// its shape suggests is tried first, then every other; the first that reads a record (or a
    /// record of another platform) in the first 1,000 lines is the file's format.
    static func detect(
        _ head: [UInt8], library: FormatLibrary = FormatLibrary(),
        mtimeMs: Int64 = 0, complete: Bool = true
    ) -> Detection {
        let (lines, attempts) = sample(head, mtimeMs: mtimeMs, complete: complete)
        guard let first = lines.first else { return .format(NDJSONFormat(), prefix: nil) }
        let sink = OutcomeSink()
        var firstReason: (format: String, reason: RejectReason)?
        // A format that recognised a record lacking a required field (an untimed result): the
        // file is read with it when no format reads a whole record, so each such line becomes a
        // reject saying what is missing instead of the file being refused.
        var recognised: (name: String, prefix: SyslogPrefix?)?
        var (order, suggested) = candidates(attempts[0].1)
        order += library.names  // user-defined formats after the built-in ones
        for (prefix, sample, times) in attempts {
            for (k, name) in order.enumerated() {
                guard let trial = make(name, library: library) else { continue }
                switch readsARecord(trial, sample, times, sink) {
                case .none: return .format(make(name, library: library)!, prefix: prefix)
                case .some(let why):
                    if case .incompleteRecord? = why, recognised == nil { recognised = (name, prefix) }
                    if k < suggested, firstReason == nil, let why { firstReason = (trial.name, why) }
                }
            }
        }
        if let recognised { return .format(make(recognised.name, library: library)!, prefix: recognised.prefix) }
        // A head cut short after a few (long) lines proves nothing: read it as its shape suggests.
        guard complete || lines.count >= 50 else {
            return .format(make(order[0], library: library)!, prefix: attempts[0].0)
        }
        // What the likeliest format said about the first line it rejected, as a hint.
        let hint = firstReason.map { " (read as \($0.format): \($0.reason))" } ?? ""
        return .refused("no known format; first line: \(String(first.prefix(100)))\(hint)")
    }

    /// The syslog prefix of a file read with a format the user named: the prefix detection would
    /// find when that format reads the lines without it, so a named format takes each line's time
    /// from its prefix as a detected one does.
    static func prefix(
        for format: LineFormat, _ head: [UInt8], library: FormatLibrary = FormatLibrary(),
        mtimeMs: Int64 = 0, complete: Bool = true
    ) -> SyslogPrefix? {
        let (_, attempts) = sample(head, mtimeMs: mtimeMs, complete: complete)
        guard let (prefix, lines, times) = attempts.first, let prefix,
            let trial = make(format.name, library: library)
        else { return nil }
        return readsARecord(trial, lines, times, OutcomeSink()) == nil ? prefix : nil
    }

    /// The first lines of `head` that are not blank, and the ways to try them: without a syslog
    /// prefix (with each line's prefix time) when the first line has one, then as they are.
    static func sample(
        _ head: [UInt8], mtimeMs: Int64, complete: Bool
    ) -> (lines: [String], attempts: [(SyslogPrefix?, [String], [Int64?])]) {
        // Split on bytes: "\r\n" is one Character to Swift, so a String split on "\n" misses it.
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let text = head.starts(with: bom) ? Array(head.dropFirst(3)) : head  // as LineReader drops it
        var raw = text.split(separator: 0x0A, omittingEmptySubsequences: false)
        if !complete && raw.count > 1 { raw.removeLast() }  // cut by the head's limit
        var lines: [String] = []
        for r in raw where lines.count < sampleLines {
            let s = ANSIEscapes.strip(String(decoding: r, as: UTF8.self)).trimmed(newlines: true)
            if !s.isEmpty { lines.append(s) }
        }
        guard let first = lines.first else { return ([], []) }
        // With a syslog prefix the lines are tried without it first, then as they are (an
        // application's own "TIME - level:" prefix can look like one).
        var attempts: [(SyslogPrefix?, [String], [Int64?])] = []
        if SyslogPrefix.starts(first) {
            let p = SyslogPrefix(mtimeMs: mtimeMs)
            var stripped = lines
            var times = [Int64?](repeating: nil, count: lines.count)
            for i in lines.indices {
                var s = lines[i]
                if let (t, rest) = s.withUTF8({ b in p.split(b).map { ($0.0, String(decoding: $0.1, as: UTF8.self)) } }) {
                    stripped[i] = rest
                    times[i] = t
                }
            }
            attempts.append((p, stripped, times))
        }
        attempts.append((nil, lines, [Int64?](repeating: nil, count: lines.count)))
        return (lines, attempts)
    }

    /// Every format, those the sample's shape suggests first (how many: `suggested`).
    static func candidates(_ lines: [String]) -> (order: [String], suggested: Int) {
        let head = lines.prefix(50)
        let first = head.first ?? ""
        let joined = Array(head.joined(separator: "\n").utf8)
        // Byte for byte: Foundation's `contains` goes through NSString, at every file's detection.
        let sample = { (needle: String) in joined.firstRange(of: Array(needle.utf8)) != nil }
        var order: [String] = []
        let sns = sample("\"delivery\"") && sample("\"notification\"")
        if sample("failed-push") || sample("succeeded-push") || sample("[GIN]") || sample("[GORUSH]") {
            order.append("gorush")
        }
        // One JSON array, or pretty-printed objects: a first line that does not close its object.
        if first.hasPrefix("[") || first == "{" || (first.hasPrefix("{") && !balanced(first)) {
            order.append(sns ? "sns-document" : "json-document")
        }
        if sns { order.append("sns") }
        let lower = first.lowercased()
        if lower.contains("push type") && lower.contains("count") && lower.contains(",") { order.append("apple-metrics") }
        // util.inspect's unquoted keys and single quotes: node-apn results printed by console.log.
        if sample("device: '") || sample("caused error: ") { order.append("node-apn-console") }
        if first.contains("{") { order.append("ndjson") }
        if first.contains(",") && !first.contains("=") { order.append("csv") }
        if first.contains("=") { order.append("logfmt") }
        let suggested = order.count
        for n in ["ndjson", "gorush", "sns", "json-document", "logfmt", "csv", "apple-metrics", "node-apn-console"] where !order.contains(n)
        {
            order.append(n)
        }
        return (order, suggested)
    }

    /// nil when `format` reads at least one record (or another platform's record) from the lines;
    /// otherwise the reason of its first incomplete record, else of its first reject, if any.
    static func readsARecord(_ format: LineFormat, _ lines: [String], _ times: [Int64?], _ sink: OutcomeSink) -> RejectReason?? {
        var firstReject: RejectReason?
        func note(_ r: RejectReason) {
            if case .incompleteRecord? = firstReject { return }
            if firstReject == nil { firstReject = r } else if case .incompleteRecord = r { firstReject = r }
        }
        for (i, line) in lines.enumerated() {
            var s = line
            for outcome in s.withUTF8({ sink.parse($0, number: i + 1, lineTime: times[i], with: format) }) {
                switch outcome {
                case .event, .skip, .metric: return .none
                case .reject(let r): note(r)
                case .ignore: continue
                }
            }
        }
        return .some(firstReject)
    }

    /// True when braces outside strings balance on the line.
    static func balanced(_ s: String) -> Bool {
        var depth = 0, inString = false, escaped = false
        for c in s.utf8 {
            if inString {
                if escaped { escaped = false } else if c == 0x5C { escaped = true } else if c == 0x22 { inString = false }
            } else if c == 0x22 {
                inString = true
            } else if c == 0x7B {
                depth += 1
            } else if c == 0x7D {
                depth -= 1
            }
        }
        return depth == 0
    }
}
