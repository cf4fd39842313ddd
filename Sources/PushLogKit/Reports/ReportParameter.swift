/// A parameter a report declares in its header:
/// `-- param: NAME TYPE [= DEFAULT]  HELP`, TYPE one of `time`, `week`, `int`, `text` or
/// `enum(a,b,...)`. The runner binds `:NAME` from it, the CLI validates the option's value
/// against it, and help and completion show it.
public struct ReportParameter: Sendable {
    public let name: String
    public let type: ParameterType
    /// The value bound when the option is not given (nil: the parameter's own absence, e.g. an open range).
    public let defaultValue: String?
    public let help: String

    /// What a parameter's value may be.
    public enum ParameterType: Sendable, Equatable, CustomStringConvertible {
        /// A point in time (`--since 7d`): bound as epoch ms.
        case time
        /// An ISO week (`2026-W47`).
        case week
        case int
        case text
        /// One of a closed list of words.
        case oneOf([String])

        public var description: String {
            switch self {
            case .time: return "time"
            case .week: return "week"
            case .int: return "int"
            case .text: return "text"
            case .oneOf(let v): return "enum(" + v.joined(separator: ",") + ")"
            }
        }

        /// The allowed values of an enum, nil for an open type.
        public var allowed: [String]? { if case .oneOf(let v) = self { return v } else { return nil } }

        static func parse(_ word: String) -> ParameterType? {
            switch word {
            case "time": return .time
            case "week": return .week
            case "int": return .int
            case "text": return .text
            default:
                guard word.hasPrefix("enum("), word.hasSuffix(")") else { return nil }
                let values = word.dropFirst(5).dropLast().split(separator: ",").map { $0.trimmed() }
                return values.isEmpty || values.contains(where: \.isEmpty) ? nil : .oneOf(values)
            }
        }

        /// Whether `value` is a value of this type.
        func accepts(_ value: String) -> Bool {
            switch self {
            case .time: return TimeArgument.parse(value) != nil
            case .week: return TimeArgument.week(value) != nil
            case .int: return Int64(value) != nil
            case .text: return true
            case .oneOf(let v): return v.contains(value)
            }
        }
    }

    /// Whether this parameter is the report's own, not one of those every report may take
    /// (`bindings`, `limit`): `--NAME VALUE` of this report only, bound as its type says.
    public var isOwn: Bool { ReportParameter.bindings[name] == nil && !ReportRunner.implicitParameters.contains(name) }

    /// What `:NAME` is bound to for `text` (an option's value or the default): a time as epoch
    /// ms, an int as an integer, the rest as text; nil when `text` is not a value of the type.
    public func bound(_ text: String) -> SQLValue? {
        guard type.accepts(text) else { return nil }
        switch type {
        case .time: return TimeArgument.parse(text).map { .int($0) }
        case .week: return .text(text.uppercased())
        case .int: return Int64(text).map { .int($0) }
        case .text, .oneOf: return .text(text)
        }
    }

    /// The parameters the runner knows how to bind, and the types their options carry: a header
    /// may narrow `text` to an enum, but `since` is always a time.
    static let bindings: [String: ParameterType] = [
        "since": .time, "until": .time, "week": .week, "budget": .int, "limit": .int,
        "by": .text, "topic": .text, "env": .text, "unit": .text, "rule": .text,
    ]

    /// The older untyped form, `NAME[=DEFAULT]  HELP`, that report files written before headers
    /// were typed use: the type is the one the parameter's option carries, and `by` and `unit`
    /// take the values every report took then.
    static func legacy(_ name: String, _ text: Substring) -> ReportParameter {
        var rest = text
        var defaultValue: String?
        if rest.hasPrefix("=") {
            defaultValue = String(rest.dropFirst().prefix { !$0.isWhitespace })
            rest = rest.dropFirst(1 + defaultValue!.count)
        }
        let type = legacyChoices[name].map(ParameterType.oneOf) ?? bindings[name] ?? .text
        return ReportParameter(name: name, type: type, defaultValue: defaultValue, help: rest.trimmed())
    }

    static let legacyChoices: [String: [String]] = [
        "by": TimeUnit.allCases.map(\.rawValue) + ["topic", "env", "app_version", "push_type", "reason"],
        "unit": ["device", "user"],
    ]

    /// Whether the words after a parameter's name are its help (the older form, one space
    /// apart), not a type: the first word is no type and one space leads on to more words.
    static func isProse(_ text: Substring) -> Bool {
        let word = text.prefix { !$0.isWhitespace }
        guard !word.isEmpty, !word.hasPrefix("enum("), ParameterType.parse(String(word)) == nil else { return false }
        let after = text.dropFirst(word.count)
        return after.hasPrefix(" ") && !after.hasPrefix("  ") && after.count > 1
    }

    /// Reads the text after `-- param:`; `at` names the file and line for errors.
    static func parse(_ text: String, at place: String) throws -> ReportParameter {
        let usage = "use -- param: NAME TYPE [= DEFAULT]  HELP, TYPE one of time, week, int, text, enum(a,b,...)"
        var rest = Substring(text.trimmed())
        let name = String(rest.prefix { !$0.isWhitespace && $0 != "=" })
        rest = rest.dropFirst(name.count)
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw CatalogError("\(place): cannot read the parameter name; \(usage)")
        }
        if rest.isEmpty || rest.hasPrefix("=") || rest.hasPrefix("  ") || isProse(rest.dropFirst()) {
            return legacy(name, rest)
        }
        rest = rest.drop { $0 == " " }
        // The type: one word, or enum(...) up to its closing parenthesis.
        var typeWord = String(rest.prefix { !$0.isWhitespace && $0 != "=" })
        if typeWord.hasPrefix("enum("), let close = rest.firstIndex(of: ")") {
            typeWord = String(rest[...close].filter { !$0.isWhitespace })
            rest = rest[rest.index(after: close)...]
        } else {
            rest = rest.dropFirst(typeWord.count)
        }
        guard !typeWord.isEmpty else { throw CatalogError("\(place): parameter \(name) has no type; \(usage)") }
        guard let type = ParameterType.parse(typeWord) else {
            throw CatalogError("\(place): unknown type '\(typeWord)' of parameter \(name); \(usage)")
        }
        if name == "by" && type.allowed == nil {
            throw CatalogError("\(place): parameter by must list its values: -- param: by enum(hour,day,week) = day  HELP")
        }
        if let bound = bindings[name], bound != type, !(bound == .text && type.allowed != nil) {
            throw CatalogError("\(place): parameter \(name) is a \(bound) (its option gives one), not \(type)")
        }
        rest = rest.drop { $0 == " " }
        var defaultValue: String?
        if rest.hasPrefix("=") {
            rest = rest.dropFirst().drop { $0 == " " }
            let v = String(rest.prefix { !$0.isWhitespace })
            guard !v.isEmpty else { throw CatalogError("\(place): parameter \(name) has '=' but no default; \(usage)") }
            guard type.accepts(v) else {
                let allowed = type.allowed.map { ": use one of \($0.joined(separator: ", "))" } ?? ""
                throw CatalogError("\(place): default '\(v)' of parameter \(name) is not a \(type)\(allowed)")
            }
            defaultValue = v
            rest = rest.dropFirst(v.count)
        }
        return ReportParameter(name: name, type: type, defaultValue: defaultValue, help: rest.trimmed())
    }
}
