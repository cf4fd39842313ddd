/// An input format as a user or the `sources` table names it: one of the built-in readers, or
/// a line format defined in a `.format` file. The spellings (`ndjson`, `json-document`, …) are
/// the ones `--input-format` takes and `sources.format` stores.
public enum InputFormat: Equatable, Sendable {
    case builtIn(BuiltInFormat)
    case defined(String)

    /// The format a name means: a definition of that name first (as detection tries them), then
    /// a built-in reader, else a definition that may not exist (making it fails).
    public init(_ name: String, library: FormatLibrary = FormatLibrary()) {
        if library.definition(name) != nil {
            self = .defined(name)
        } else if let b = BuiltInFormat(rawValue: name) {
            self = .builtIn(b)
        } else {
            self = .defined(name)
        }
    }

    /// The name as typed and stored.
    var name: String {
        switch self {
        case .builtIn(let b): return b.rawValue
        case .defined(let n): return n
        }
    }
}

/// The built-in readers, by the names they answer to (`json` and `node-apn` are NDJSON's).
public enum BuiltInFormat: String, CaseIterable, Sendable {
    case ndjson, json
    case jsonDocument = "json-document"
    case snsDocument = "sns-document"
    case logfmt, csv, sns, gorush
    case nodeAPN = "node-apn"
    case nodeAPNConsole = "node-apn-console"
    case appleMetrics = "apple-metrics"
}
