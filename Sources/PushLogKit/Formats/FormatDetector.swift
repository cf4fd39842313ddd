import Foundation

/// Picks a file's format from its first lines (SPEC §3), or makes the one a user forced.
public enum FormatDetector {
    public static let names = ["ndjson", "json-document", "logfmt", "csv", "sns", "gorush", "node-apn", "apple-metrics"]

    public static func make(_ name: String, builder: EventBuilder) -> LineFormat? {
        switch name {
        case "ndjson", "json", "node-apn": return NDJSONFormat(builder: builder)
        case "json-document": return JSONDocumentFormat(inner: NDJSONFormat(builder: builder))
        case "logfmt": return LogfmtFormat(builder: builder)
        case "csv": return CSVFormat(builder: builder)
        case "sns": return SNSFormat(builder: builder)
        case "gorush": return GorushFormat(builder: builder)
        case "apple-metrics": return AppleMetricsFormat()
        default: return nil
        }
    }

    /// Looks at the first non-blank lines of `head` (the first 64 KiB after decompression).
    public static func detect(_ head: [UInt8], builder: EventBuilder) -> LineFormat {
        let text = String(decoding: head, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }.prefix(20)
        guard let first = lines.first else { return NDJSONFormat(builder: builder) }
        let sample = lines.joined(separator: "\n")
        if sample.contains("failed-push") || sample.contains("succeeded-push") || sample.contains("[GIN]") || sample.contains("[GORUSH]") {
            return GorushFormat(builder: builder)
        }
        // One JSON array, or pretty-printed objects: a first line that does not close its object.
        if first.hasPrefix("[") || first == "{" || (first.hasPrefix("{") && !balanced(first)) {
            let inner: LineFormat = sample.contains("\"delivery\"") && sample.contains("\"notification\"")
                ? SNSFormat(builder: builder) : NDJSONFormat(builder: builder)
            return JSONDocumentFormat(inner: inner)
        }
        if sample.contains("\"delivery\"") && sample.contains("\"notification\"") { return SNSFormat(builder: builder) }
        if first.contains("{") { return NDJSONFormat(builder: builder) }
        let lower = first.lowercased()
        if lower.contains("push type") && lower.contains("count") && lower.contains(",") { return AppleMetricsFormat() }
        if first.contains(",") && !first.contains("=") { return CSVFormat(builder: builder) }
        if first.contains("=") { return LogfmtFormat(builder: builder) }
        return NDJSONFormat(builder: builder)
    }

    /// True when braces outside strings balance on the line.
    static func balanced(_ s: String) -> Bool {
        var depth = 0, inString = false, escaped = false
        for c in s.utf8 {
            if inString {
                if escaped { escaped = false } else if c == 0x5C { escaped = true } else if c == 0x22 { inString = false }
            } else if c == 0x22 { inString = true } else if c == 0x7B { depth += 1 } else if c == 0x7D { depth -= 1 }
        }
        return depth == 0
    }
}
