/// The text exposition format shared by Prometheus (0.0.4) and OpenMetrics: `# HELP` and
/// `# TYPE` before each family's samples, label values escaped, and `# EOF` at the end (which
/// OpenMetrics requires and the Prometheus parser reads as a comment).
public enum OpenMetricsRenderer {
    public static func render(_ families: [MetricFamily]) -> String {
        var out = ""
        for f in families {
            out += "# HELP \(f.name) \(escapeHelp(f.help))\n"
            out += "# TYPE \(f.name) gauge\n"
            for s in f.samples {
                out += f.name
                if !s.labels.isEmpty {
                    out += "{" + s.labels.map { "\($0.0)=\"\(escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
                }
                out += " " + number(s.value) + "\n"
            }
        }
        return out + "# EOF\n"
    }

    /// Label values: backslash, double quote and line feed escaped (both formats' rule). Other
    /// control characters (a topic from a log could hold one) have no escape in either format:
    /// they become `?`.
    static func escapeLabel(_ s: String) -> String {
        var o = ""
        for u in s.unicodeScalars {
            switch u {
            case "\\": o += "\\\\"
            case "\"": o += "\\\""
            case "\n": o += "\\n"
            default: if u.value < 0x20 || u.value == 0x7f { o += "?" } else { o.unicodeScalars.append(u) }
            }
        }
        return o
    }

    static func escapeHelp(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// Whole numbers without a fraction; others with enough digits to round-trip a rate.
    static func number(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d > 0 ? "+Inf" : "-Inf" }
        if d.rounded() == d && abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }
}
