import Foundation

/// Why a line-format definition cannot be used, with its file and line (a usage error).
public struct FormatDefinitionError: Error, CustomStringConvertible {
    let file: String
    let line: Int
    let message: String
    public var description: String { "\(file):\(line): \(message)" }
}

/// A line format defined as data, in the spirit of lnav's format files: a name, regular
/// expressions whose named captures are event fields, constants, a time format and sample lines
/// that must each read as a record (checked when the file loads). The file, one directive a line:
///
///     # comment
///     name: parse-server
///     description: Parse Server push adapter, APNs results
///     time-format: %Y-%m-%dT%H:%M:%S.%fZ        (optional; default: every time form pushlog reads;
///                                                after a pattern: for that pattern only)
///     set: event=send                           (before any pattern: for every pattern)
///     pattern: ^(?<time>\S+) .*device (?<token>[0-9a-f]+) with status (?<status>\d+) and reason (?<reason>\w+)
///                                               (ICU syntax; capture names are letters and digits,
///                                                matched to fields like keys: apnsId is apns_id)
///     pattern: ^(?<time>\S+) .*APNS transmitted to (?<token>[0-9a-f]+)
///     set: status=200                           (after a pattern: for that pattern only)
///     sample: 2026-11-02T08:00:00.000Z verbose: APNS transmitted to 3f2a…
///     expect: status=200                        (optional: fields the sample above must give)
///     remember: apns_id                         (after a pattern: its lines are not answers; what
///                                                they capture is kept for their request)
///
/// A line that no pattern matches is not a record of the format (ignored). A pattern names the
/// tool's message; where it captures no time, the time is the first date and time in the layout
/// around the message (`LayoutTime`), else the line prefix's. A capture named `request` is the
/// request id a logger layout writes: an answer that names no apns-id takes the one a
/// `remember:` line kept for its request, and a line with no layout of its own (a traceback)
/// belongs to the request of the last remembered line.
// @unchecked: every property is a let; the one the checker cannot prove Sendable is
// NSRegularExpression, which is immutable and documented safe to share between threads.
public final class LineDefinition: @unchecked Sendable {
    struct Pattern {
        let regex: NSRegularExpression
        let source: String
        /// Text every match contains, looked for before the regex runs (most lines of an
        /// application's log match no pattern, and a byte search is far cheaper than ICU).
        let literal: [UInt8]?
        let captures: [(name: String, role: CaptureRole)]
        var constants: [(Field, String)]
        /// Fields a `remember:` keeps from this pattern's lines (which are then passed over).
        var remembers: [Field] = []
        /// The first plain text of the pattern (6 bytes or more): a line holding it that no pattern
        /// matches may have been wrapped, and is tried again joined with the next line.
        let lead: [UInt8]?
        /// The pattern's own time format (a `time-format:` after it), else the definition's.
        var time: DefinitionTime?
    }

    public let name: String
    public let summary: String
    public let file: String
    public let builtIn: Bool
    let time: DefinitionTime?
    let patterns: [Pattern]
    /// Sample lines (line number in the file, text); the first is shown by `pushlog formats`.
    public let samples: [(line: Int, text: String)]

    init(name: String, summary: String, file: String, builtIn: Bool, time: DefinitionTime?, patterns: [Pattern], samples: [(Int, String)]) {
        self.name = name
        self.summary = summary
        self.file = file
        self.builtIn = builtIn
        self.time = time
        self.patterns = patterns
        self.samples = samples
    }

    /// Reads and checks a definition file.
    public static func load(path: String, builtIn: Bool = false) throws -> LineDefinition {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FormatDefinitionError(file: path, line: 0, message: "cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw FormatDefinitionError(file: path, line: 0, message: "not UTF-8 text")
        }
        return try parse(text, file: path, builtIn: builtIn)
    }

    static let directives = ["name", "description", "time-format", "set", "pattern", "sample", "expect", "remember"]
    /// What a named capture gives: an event field, or one of the two names that are not fields.
    enum CaptureRole {
        case field(Field)
        /// `request`: the request id a logger layout writes.
        case request
        /// `binaryError`: a code of APNs' legacy binary protocol (8 is an invalid token).
        case binaryError
    }

    /// Parses a definition, compiles its patterns and checks its samples.
    static func parse(_ text: String, file: String, builtIn: Bool = false) throws -> LineDefinition {
        let keys = FieldKeyTable()
        var name: String?, summary = "", time: DefinitionTime?
        var patterns: [Pattern] = []
        var shared: [(Field, String)] = []
        var samples: [(Int, String)] = []
        var expects: [Int: (line: Int, pairs: [(String, String)])] = [:]  // by sample index
        func fail(_ n: Int, _ m: String) -> FormatDefinitionError { FormatDefinitionError(file: file, line: n, message: m) }

        for (k, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let n = k + 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw fail(n, "expected 'directive: value' (directives: \(directives.joined(separator: ", ")))")
            }
            let directive = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            var value = String(line[line.index(after: colon)...])
            if value.hasPrefix(" ") { value.removeFirst() }
            switch directive {
            case "name":
                let v = value.trimmingCharacters(in: .whitespaces)
                guard !v.isEmpty, v.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                    throw fail(n, "a name is letters, digits, '-' and '_': '\(v)'")
                }
                name = v
            case "description":
                summary = value.trimmingCharacters(in: .whitespaces)
            case "time-format":
                var why = ""
                guard let t = DefinitionTime(value.trimmingCharacters(in: .whitespaces), why: &why) else { throw fail(n, why) }
                if patterns.isEmpty { time = t } else { patterns[patterns.count - 1].time = t }
            case "set":
                guard let eq = value.firstIndex(of: "=") else { throw fail(n, "set needs field=value, e.g. set: event=send") }
                let key = value[..<eq].trimmingCharacters(in: .whitespaces)
                let v = value[value.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                guard let f = keys.field(key), f != .shape else {
                    throw fail(n, "unknown field '\(key)' in set (fields: the event schema's keys, e.g. event, time, token, status, env)")
                }
                if patterns.isEmpty { shared.append((f, v)) } else { patterns[patterns.count - 1].constants.append((f, v)) }
            case "pattern":
                let names = captureNames(value)
                if let bad = names.first(where: { !$0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }) {
                    throw fail(
                        n, "capture name '\(bad)': names are ASCII letters and digits, matched to fields like keys (apnsId for apns_id)")
                }
                let regex: NSRegularExpression
                do {
                    regex = try NSRegularExpression(pattern: value)
                } catch {
                    throw fail(n, "bad regular expression (ICU syntax): \(value)")
                }
                var captures: [(String, CaptureRole)] = []
                for c in names {
                    if c == "request" || c == "binaryError" {
                        captures.append((c, c == "request" ? .request : .binaryError))
                        continue
                    }
                    guard let f = keys.field(c), f != .shape, f != .response, f != .body, f != .payload else {
                        throw fail(
                            n,
                            "unknown field '\(c)' in a named capture (fields: the event schema's keys, e.g. time, token, status, reason, apns_id)"
                        )
                    }
                    captures.append((c, .field(f)))
                }
                patterns.append(
                    Pattern(
                        regex: regex, source: value, literal: requiredLiteral(value), captures: captures, constants: [],
                        lead: leadingLiteral(value), time: nil))
            case "remember":
                guard !patterns.isEmpty else { throw fail(n, "remember comes after the pattern whose lines it keeps") }
                for word in value.split(separator: " ") {
                    guard let f = keys.field(String(word)), f == .apnsID || f == .time else {
                        throw fail(n, "remember keeps apns_id and time; not '\(word)'")
                    }
                    patterns[patterns.count - 1].remembers.append(f)
                }
            case "sample":
                samples.append((n, value))
            case "expect":
                guard !samples.isEmpty else { throw fail(n, "expect comes after the sample it checks") }
                var pairs: [(String, String)] = []
                for word in value.split(separator: " ") {
                    guard let eq = word.firstIndex(of: "=") else { throw fail(n, "expect needs field=value pairs") }
                    pairs.append((String(word[..<eq]), String(word[word.index(after: eq)...])))
                }
                expects[samples.count - 1] = (n, pairs)
            default:
                throw fail(n, "unknown directive '\(directive)' (directives: \(directives.joined(separator: ", ")))")
            }
        }
        guard let name else { throw fail(1, "no 'name:' line") }
        guard !patterns.isEmpty else { throw fail(1, "no 'pattern:' line") }
        guard !samples.isEmpty else { throw fail(1, "no 'sample:' line (each definition shows at least one line it reads)") }
        for i in patterns.indices {
            patterns[i].constants = shared + patterns[i].constants
            if patterns[i].time == nil { patterns[i].time = time }
        }
        let def = LineDefinition(
            name: name, summary: summary, file: file, builtIn: builtIn, time: time, patterns: patterns, samples: samples)
        try def.checkSamples(expects)
        return def
    }

    /// Every sample must read as a record, with the fields its `expect` line names.
    func checkSamples(_ expects: [Int: (line: Int, pairs: [(String, String)])]) throws {
        let sink = OutcomeSink()
        let format = DefinedFormat(self)
        for (i, (n, text)) in samples.enumerated() {
            var s = text
            let outcome = s.withUTF8 { sink.parse($0, number: n, with: format) }
            switch outcome.first {
            case .event?: break
            case .reject(let why)?: throw FormatDefinitionError(file: file, line: n, message: "the sample is not a record: \(why)")
            default: throw FormatDefinitionError(file: file, line: n, message: "no pattern matches the sample")
            }
            guard let (en, pairs) = expects[i] else { continue }
            let e = sink.builder.event
            for (key, want) in pairs {
                let got: String?
                switch key {
                case "event": got = e.kind?.name
                case "time": got = e.time.map { TimeFormat.rfc3339(ms: $0) }
                case "token": got = e.token?.string
                case "status": got = e.status.map { String($0) }
                case "reason": got = e.reason?.string
                case "apns_id": got = e.apnsID?.string
                case "env": got = e.env?.string
                case "error": got = e.error?.string
                default:
                    throw FormatDefinitionError(
                        file: file, line: en, message: "expect knows event, time, token, status, reason, apns_id, env, error; not '\(key)'")
                }
                if got != want {
                    throw FormatDefinitionError(
                        file: file, line: en, message: "the sample gives \(key)=\(got ?? "(none)"), expected \(want)")
                }
            }
        }
    }

    /// The longest run of plain characters that every match of `pattern` contains (outside groups,
    /// classes and quantified characters), or nil when there is none of 3 bytes or more or the
    /// pattern has a top-level alternation or flags.
    static func requiredLiteral(_ pattern: String) -> [UInt8]? {
        let b = Array(pattern.utf8)
        var best: [UInt8] = [], run: [UInt8] = []
        var depth = 0, i = 0
        func close() { if run.count > best.count { best = run }; run = [] }
        while i < b.count {
            let c = b[i]
            if c == 0x5C, i + 1 < b.count {  // an escape: punctuation is literal, \d \s \w \b are not
                let e = b[i + 1]
                let isWordClass = (e >= 0x41 && e <= 0x5A) || (e >= 0x61 && e <= 0x7A) || (e >= 0x30 && e <= 0x39)
                if depth == 0 && !isWordClass { run.append(e) } else { close() }
                i += 2
            } else if c == 0x5B {  // a class: skip to its end
                close()
                i += 1
                if i < b.count && b[i] == 0x5D { i += 1 }
                while i < b.count && b[i] != 0x5D { i += b[i] == 0x5C ? 2 : 1 }
                i += 1
            } else if c == 0x28 {
                if i + 2 < b.count && b[i + 1] == 0x3F && b[i + 2] != 0x3A && b[i + 2] != 0x3C && b[i + 2] != 0x3D && b[i + 2] != 0x21 {
                    return nil
                }  // (?i) flags
                close(); depth += 1; i += 1
            } else if c == 0x29 {
                close(); depth -= 1; i += 1
            } else if c == 0x7C {
                if depth == 0 { return nil }
                close(); i += 1
            } else if c == 0x2A || c == 0x2B || c == 0x3F || c == 0x7B {  // a quantifier takes back the character before it
                if !run.isEmpty { run.removeLast() }
                close()
                if c == 0x7B { while i < b.count && b[i] != 0x7D { i += 1 } }
                i += 1
            } else if c == 0x2E || c == 0x5E || c == 0x24 {
                close(); i += 1
            } else {
                if depth == 0 { run.append(c) } else { close() }
                i += 1
            }
        }
        close()
        return best.count >= 3 ? best : nil
    }

    /// The plain text (6 bytes or more) a pattern starts with, after `^`, `\b` and optional groups
    /// (`(...)?`); nil when something else comes first. A wrapped line holds it, so the line can
    /// be tried from there.
    static func leadingLiteral(_ pattern: String) -> [UInt8]? {
        let b = Array(pattern.utf8)
        var run: [UInt8] = []
        var i = 0
        while i < b.count {
            let c = b[i]
            if c == 0x5C, i + 1 < b.count {
                let e = b[i + 1]
                let isWordClass = (e >= 0x41 && e <= 0x5A) || (e >= 0x61 && e <= 0x7A) || (e >= 0x30 && e <= 0x39)
                let boundaryFirst = run.isEmpty && e == 0x62  // \b before the text
                if !isWordClass {
                    run.append(e)
                } else if !boundaryFirst {
                    break
                }
                i += 2
                continue
            }
            if c == 0x5E && run.isEmpty && i == 0 {
                i += 1
                continue
            }
            if c == 0x28 && run.isEmpty {  // an optional group before the text: skip it
                var depth = 0, j = i
                while j < b.count {
                    if b[j] == 0x5C { j += 2; continue }
                    if b[j] == 0x28 { depth += 1 } else if b[j] == 0x29 { depth -= 1; if depth == 0 { break } }
                    j += 1
                }
                guard j + 1 < b.count, b[j + 1] == 0x3F else { return nil }
                i = j + 2
                continue
            }
            if "[()|*+?{.^$".utf8.contains(c) {
                if c == 0x2A || c == 0x2B || c == 0x3F || c == 0x7B, !run.isEmpty { run.removeLast() }
                break
            }
            run.append(c)
            i += 1
        }
        return run.count >= 6 ? run : nil
    }

    /// Names of the named groups `(?<name>…)` in a pattern (not lookbehinds `(?<=`, `(?<!`).
    static func captureNames(_ pattern: String) -> [String] {
        var out: [String] = []
        let b = Array(pattern.utf8)
        var i = 0
        while i + 3 < b.count {
            if b[i] == 0x5C { i += 2; continue }  // an escaped character
            if b[i] == 0x28 && b[i + 1] == 0x3F && b[i + 2] == 0x3C && b[i + 3] != 0x3D && b[i + 3] != 0x21 {
                var j = i + 3
                while j < b.count && b[j] != 0x3E { j += 1 }
                out.append(String(decoding: b[(i + 3)..<j], as: UTF8.self))
                i = j
            }
            i += 1
        }
        return out
    }
}
