import Foundation

/// Proposes a line-format definition for a log in no known shape (`pushlog formats draft`): it
/// finds, in each line, a time in a common layout, a 64-hex device token, an apns-id (a UUID), an
/// HTTP status and an APNs reason name; a line naming a token or an apns-id with a status or a
/// reason is an APNs answer. Answers of the same shape (the same fields, with the same words
/// around them) share one pattern: the text between fields becomes a literal when it is plain
/// words, else "anything, then its last words". The draft's samples are the log's own lines, and
/// it is checked like any definition before it is returned.
public enum FormatDraft {
    /// A field found in a line: its capture name, the regex its capture uses, and where it is.
    struct Span {
        let name: String
        let regex: String
        let range: Range<String.Index>
    }

    static let timeLayouts = [
        #"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?: ?(?:Z|[+-]\d\d:?\d\d))?"#,
        #"\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)?"#,
    ]
    static let uuid = #"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"#
    static let finders: [(name: String, find: NSRegularExpression, capture: String)] = {
        let reasons = ReasonTaxonomy.reasons.map(\.0).joined(separator: "|")
        var f: [(String, NSRegularExpression, String)] = timeLayouts.map { ("time", try! NSRegularExpression(pattern: $0), $0) }
        f.append(("token", try! NSRegularExpression(pattern: #"(?<![0-9A-Fa-f])[0-9A-Fa-f]{64}(?![0-9A-Fa-f])"#), "[0-9A-Fa-f]{64}"))
        f.append(("apnsId", try! NSRegularExpression(pattern: "(?<![0-9A-Fa-f-])" + uuid + "(?![0-9A-Fa-f-])"), uuid))
        f.append(("reason", try! NSRegularExpression(pattern: #"\b(?:"# + reasons + #")\b"#), "[A-Za-z]+"))
        f.append(("status", try! NSRegularExpression(pattern: #"(?<![\d.:,/-])(?:200|4\d\d|5\d\d)(?![\d.:])"#), #"\d{3}"#))
        return f
    }()

    /// The fields of one line, in line order, each kind at most once (its first place).
    static func spans(_ line: String) -> [Span] {
        var out: [Span] = []
        let whole = NSRange(line.startIndex..., in: line)
        for (name, find, capture) in finders where !out.contains(where: { $0.name == name }) {
            for m in find.matches(in: line, range: whole) {
                guard let r = Range(m.range, in: line), !out.contains(where: { $0.range.overlaps(r) }) else { continue }
                out.append(Span(name: name, regex: capture, range: r))
                break
            }
        }
        return out.sorted { $0.range.lowerBound < $1.range.lowerBound }
    }

    /// The text between two fields as a pattern: plain words stay literal; text with digits (ids,
    /// counters, hosts) becomes "anything" followed by its last plain words.
    static func between(_ text: Substring) -> String {
        if text.isEmpty { return "" }
        if !text.contains(where: { $0.isNumber }) && text.count <= 48 { return NSRegularExpression.escapedPattern(for: String(text)) }
        var tail = text
        if let lastDigit = text.lastIndex(where: { $0.isNumber }) { tail = text[text.index(after: lastDigit)...] }
        if tail.count > 40 {
            tail = tail.suffix(40)
            if let space = tail.firstIndex(of: " ") { tail = tail[space...] }
        }
        while let c = tail.first, !(c.isLetter || c == " ") { tail = tail.dropFirst() }
        return ".*?" + NSRegularExpression.escapedPattern(for: String(tail))
    }

    /// The pattern for a line's shape, and the event its records are; nil when it is no APNs answer.
    static func pattern(_ line: String) -> (pattern: String, event: String)? {
        let found = spans(line)
        let names = Set(found.map(\.name))
        guard names.contains("token") || names.contains("apnsId"), names.contains("status") || names.contains("reason") else {
            return nil
        }
        let event = names.contains("token") ? "send" : "response"
        if event == "response" && !names.contains("status") { return nil }
        var p = "^"
        var at = line.startIndex
        for s in found {
            let gap = line[at..<s.range.lowerBound]
            p += between(gap)
            p += "(?<\(s.name)>\(s.regex))"
            at = s.range.upperBound
        }
        let rest = line[at...].prefix { !$0.isNumber && $0 != " " }
        if !rest.isEmpty && rest.count <= 3 { p += NSRegularExpression.escapedPattern(for: String(rest)) }
        return (p, event)
    }

    /// A definition named `name` for the lines of a log, or nil when no line looks like an APNs
    /// answer. At most `maxPatterns` shapes, the most frequent first.
    public static func draft(lines: [String], name: String, source: String, maxPatterns: Int = 8) -> String? {
        var shapes: [String: (event: String, count: Int, sample: String)] = [:]
        var order: [String] = []
        var answers = 0
        for raw in lines {
            let line = ANSIEscapes.strip(raw).trimmed(newlines: true)
            guard !line.isEmpty, let (p, event) = pattern(line) else { continue }
            answers += 1
            if let s = shapes[p] {
                shapes[p] = (s.event, s.count + 1, s.sample)
            } else {
                shapes[p] = (event, 1, line)
                order.append(p)
            }
        }
        var kept = order.sorted { shapes[$0]!.count > shapes[$1]!.count }.prefix(maxPatterns).map { $0 }
        // Keep only the patterns whose own sample reads as a record.
        while !kept.isEmpty {
            let text = render(kept, shapes, name: name, source: source, lines: lines.count, answers: answers)
            do {
                _ = try LineDefinition.parse(text, file: name + ".format")
                return text
            } catch let e as FormatDefinitionError {
                guard let bad = badPattern(text, line: e.line, kept) else { return nil }
                kept.removeAll { $0 == bad }
            } catch {
                return nil
            }
        }
        return nil
    }

    /// The pattern whose pattern or sample line is at `line` of the rendered text.
    static func badPattern(_ text: String, line: Int, _ kept: [String]) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count else { return nil }
        var i = line - 1
        while i >= 0 {
            if lines[i].hasPrefix("pattern: ") { return kept.first { "pattern: " + $0 == lines[i] } }
            if lines[i].hasPrefix("sample: ") {
                // Samples follow the patterns in the same order.
                let samples = lines.filter { $0.hasPrefix("sample: ") }
                if let k = samples.firstIndex(of: lines[i]), k < kept.count { return kept[k] }
            }
            i -= 1
        }
        return nil
    }

    static func render(
        _ kept: [String], _ shapes: [String: (event: String, count: Int, sample: String)], name: String, source: String, lines: Int,
        answers: Int
    ) -> String {
        var t = "# Drafted by `pushlog formats draft` from \(source): \(answers) of \(lines) lines looked like APNs answers,\n"
        t +=
            "# in \(shapes.count) shape\(shapes.count == 1 ? "" : "s") (\(kept.count) kept). Edit the patterns (the text between fields is a guess),\n"
        t += "# then check it with `pushlog formats check FILE`.\n"
        t += "name: \(name)\n"
        t += "description: drafted from \(source)\n"
        for p in kept {
            t += "pattern: \(p)\n"
            t += "set: event=\(shapes[p]!.event)\n"
        }
        for p in kept {
            t += "sample: \(shapes[p]!.sample)\n"
        }
        return t
    }
}
