import Foundation

/// Reads lines with a `LineDefinition`: the first pattern that matches gives the record. The
/// time is the pattern's own capture, else the first date and time in the layout around the
/// message, else the line prefix's. An answer that names no token is a response whose token is
/// unknown. A line holding the text a pattern starts with that matches nothing may have been
/// wrapped by whatever pasted it: when the next line matches nothing either, does not start a
/// layout of its own, and the two joined are an answer, they are read as one record (the first
/// line stays counted as passed over: it was, when read alone).
final class DefinedFormat: LineFormat {
    /// True when `needle` occurs in the `n` bytes at `p` (memchr for its first byte, then memcmp).
    static func contains(_ p: UnsafePointer<UInt8>, _ n: Int, _ needle: [UInt8]) -> Bool {
        let m = needle.count
        guard m > 0, n >= m else { return m == 0 }
        return needle.withUnsafeBufferPointer { nd in
            var i = 0
            while i <= n - m {
                guard let hit = memchr(p + i, Int32(nd[0]), n - m - i + 1) else { return false }
                let j = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) - p
                if memcmp(p + j, nd.baseAddress!, m) == 0 { return true }
                i = j + 1
            }
            return false
        }
    }

    /// What a request's remembered lines said.
    struct Remembered {
        var apnsID: String?
        var time: Int64?
    }

    var name: String { definition.name }
    let definition: LineDefinition
    /// Whether any pattern remembers (only then are requests followed).
    let remembers: Bool
    /// What remembered lines kept, by request id, in two generations: past `requestLimit` the
    /// newer becomes the older and the older is dropped, so memory stays bounded while the
    /// requests just seen stay known.
    private var requests: [String: Remembered] = [:]
    private var olderRequests: [String: Remembered] = [:]
    static let requestLimit = 10_000
    /// The request of the last remembered line, until a line with a layout of its own.
    private var currentRequest: String?
    /// The last line if it may have been wrapped (`mayBeWrapped`), its number and prefix time.
    private let previous = RecordBuffer()
    private var previousLine = 0
    private var previousTime: Int64?
    private let joined = RecordBuffer()
    /// Longest line tried again with the next one.
    static let joinLimit = 4096
    /// The text each pattern that can be wrapped starts with.
    let leads: [[UInt8]]

    init(_ definition: LineDefinition) {
        self.definition = definition
        remembers = definition.patterns.contains { !$0.remembers.isEmpty }
        leads = definition.patterns.compactMap(\.lead)
    }

    /// "a time", "an apns_id": how a reject names the missing field.
    static func article(_ field: String) -> String {
        ("aeiou".contains(field.first ?? "x") ? "an " : "a ") + field
    }

    func parse(_ line: ByteSlice, number: Int, lineTime: Int64?, into sink: RecordSink) {
        let outcome = read(line, sink.builder, lineTime: lineTime)
        if outcome == .ignore, !previous.isEmpty, let joinedOutcome = readJoined(line, sink.builder) {
            previous.reset()
            let span = RecordSpan(bytes: joined.slice, firstLine: previousLine)
            switch joinedOutcome {
            case .event: sink.record(span)
            case .reject(let r): sink.reject(r, span)
            default: sink.report(joinedOutcome)
            }
            return
        }
        previous.reset()
        if outcome == .ignore, mayBeWrapped(line) {
            previous.append(line)
            previousLine = number
            previousTime = lineTime
        }
        sink.report(outcome)
    }

    /// The previous line and `line` read as one (joined as they are, then with a space), when
    /// `line` does not start a layout of its own and the joined text is an answer; else nil.
    func readJoined(_ line: ByteSlice, _ builder: EventBuilder) -> ParseOutcome? {
        var start = 0
        while start < line.count && (line[start] == 0x20 || line[start] == 0x09) { start += 1 }
        let rest = ByteSlice(rebasing: line[start...])
        guard let first = rest.first, first != 0x5B, first != 0x7B,
            LayoutTime.first(in: ByteSlice(rebasing: rest.prefix(40))) == nil
        else { return nil }
        for separator in [nil, UInt8(0x20)] {
            joined.reset()
            joined.append(previous.slice)
            if let separator { joined.append(separator) }
            joined.append(rest)
            let outcome = read(joined.slice, builder, lineTime: previousTime)
            if case .event = outcome { return outcome }
            if case .reject = outcome { return outcome }
        }
        return nil
    }

    /// A line that matched nothing but holds the text a pattern starts with: it may have been
    /// wrapped, and is kept to be tried again with the next line.
    func mayBeWrapped(_ line: ByteSlice) -> Bool {
        guard line.count < DefinedFormat.joinLimit, let base = line.baseAddress else { return false }
        return leads.contains { DefinedFormat.contains(base, line.count, $0) }
    }

    func read(_ line: ByteSlice, _ builder: EventBuilder, lineTime: Int64?) -> ParseOutcome {
        var text: (String, NSRange)?
        for p in definition.patterns {
            if let lit = p.literal, let base = line.baseAddress {
                if !DefinedFormat.contains(base, line.count, lit) { continue }
            }
            if text == nil {
                let s = String(decoding: line, as: UTF8.self)
                text = (s, NSRange(location: 0, length: s.utf16.count))
            }
            let (s, whole) = text!
            guard let m = p.regex.firstMatch(in: s, range: whole) else { continue }
            builder.reset()
            for (f, v) in p.constants { builder.assign(f, string: v) }
            var request: String?
            for (capture, role) in p.captures {
                let r = m.range(withName: capture)
                guard r.location != NSNotFound, let range = Range(r, in: s) else { continue }
                let v = String(s[range])
                let f: Field
                switch role {
                case .field(let field): f = field
                case .request:
                    request = v
                    continue
                case .binaryError:
                    guard let code = Int(v), let legacy = LegacyAPNsError(code: code) else { continue }
                    builder.assign(.status, string: String(legacy.status), .number)
                    builder.assign(.reason, string: legacy.reason.description)
                    continue
                }
                if f == .time, let format = p.time {
                    guard let ms = format.parse(v) else { return .reject(.timeMismatch(String(v.prefix(40)))) }
                    builder.assign(.time, string: String(ms), .number)
                } else if f == .error {
                    builder.assign(f, string: TransportError.cause(v))
                } else {
                    builder.assign(f, string: v)
                }
            }
            let layoutTime = builder.event.time == nil ? LayoutTime.first(in: line) : nil
            let ownLayout = builder.event.time != nil || layoutTime != nil
            if !p.remembers.isEmpty {
                remember(request, builder, time: builder.event.time ?? layoutTime)
                return .ignore
            }
            if let layoutTime { builder.assign(.time, string: String(layoutTime), .number) }
            if remembers {
                // A line with no layout of its own (a traceback) belongs to the last remembered request.
                if let key = request ?? (ownLayout ? nil : currentRequest), let r = requests[key] ?? olderRequests[key] {
                    if builder.event.apnsID == nil, let a = r.apnsID { builder.assign(.apnsID, string: a) }
                    // The remembered line's layout time is this record's own, finer than a prefix's.
                    if builder.event.time == nil, let t = r.time { builder.assign(.time, string: String(t), .number) }
                }
                if ownLayout { currentRequest = nil }
            }
            builder.unknownTokenIsResponse = true
            switch builder.finish(lineTime: lineTime) {
            case nil: return .event
            case .missingField(let f)?: return .reject(.incompleteRecord(format: "\(name) line", missing: Self.article(f)))
            case let r?: return .reject(r)
            }
        }
        if remembers, currentRequest != nil, LayoutTime.first(in: ByteSlice(rebasing: line.prefix(48))) != nil { currentRequest = nil }
        return .ignore
    }

    /// Keeps what a remembered line says for its request, which becomes the current one.
    func remember(_ request: String?, _ builder: EventBuilder, time: Int64?) {
        guard let request else { return }
        if requests.count >= DefinedFormat.requestLimit {
            olderRequests = requests
            requests.removeAll(keepingCapacity: true)
        }
        var r = requests[request] ?? olderRequests[request] ?? Remembered()
        if let a = builder.event.apnsID { r.apnsID = String(decoding: a, as: UTF8.self) }
        if let time { r.time = time }
        requests[request] = r
        currentRequest = request
    }
}
