/// Picks a file's format from its first lines (SPEC §3), or makes the one a user forced.
public enum FormatDetector {
    public static let names = ["ndjson"]

    public static func make(_ name: String, builder: EventBuilder) -> LineFormat? {
        switch name {
        case "ndjson", "json": return NDJSONFormat(builder: builder)
        default: return nil
        }
    }

    /// Looks at the first non-blank lines of `head`.
    public static func detect(_ head: [UInt8], builder: EventBuilder) -> LineFormat {
        return NDJSONFormat(builder: builder)
    }
}
