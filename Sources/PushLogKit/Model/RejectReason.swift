/// Why a line (or a record packed in one) is not a record: what the parsing stage hands the
/// writer with a reject, and what `rejects.reason` stores as `description` (the wording is
/// part of the product: users query it and tests pin it).
enum RejectReason: Equatable, Sendable, CustomStringConvertible {
    // MARK: the line itself
    case lineTooLong, invalidUTF8, nulByte

    // MARK: JSON syntax (columns are 1-based)
    case emptyLine, notJSONObject, notValidJSONObject
    case trailingCharacters(column: Int)
    case unterminatedString(column: Int?)
    case tooLargeToUnescape
    case badUnicodeEscape(column: Int)
    case badEscape(Character, column: Int)
    case unexpectedEndOfLine, unexpectedEndInsideObject, nestedTooDeeply
    case unexpectedCharacter(column: Int)
    case badJSONValue(column: Int)
    case expectedKey(column: Int)
    case expectedColon(column: Int)
    case expectedCommaOrBrace(column: Int)
    case textBetweenJSONRecords, jsonRecordTooLong, jsonRecordNotClosed

    // MARK: CSV, logfmt, Apple delivery metrics
    case unbalancedQuotes, csvFieldNeverClosed, csvFieldNotClosedAtEnd
    case csvHeaderWithoutTime(header: String)
    case csvFieldCount(row: Int, header: Int)
    case notLogfmt, notAppleMetricsHeader
    case fieldCount(Int)
    case badDate(String)
    case badCount(String)

    // MARK: values
    case outOfRange(field: String)
    case notAnInteger(field: String, text: String)
    case badValue(field: String, text: String)
    /// A defined format's time field that its time-format does not read.
    case timeMismatch(String)

    // MARK: record validation (every format, through EventBuilder.finish)
    case foreignRecord
    case unknownEventKind(String)
    case unknownKind
    case missingField(String)
    case missingDeviceOrUser
    case badAuth(String)
    case emptyToken
    case statusOutOfRange(Int64)

    /// Another tool's record (Braze, SNS, gorush, Expo, Pinpoint, node-apn) that its reader
    /// recognised but cannot take, in that reader's words.
    case unreadableShape(String)
    /// A record of a recognised format that lacks a field every record needs ("rpush line
    /// without a time"): detection takes the format even when all its records are like this.
    case incompleteRecord(format: String, missing: String)

    var description: String {
        switch self {
        case .lineTooLong: return "line longer than 1 MiB"
        case .invalidUTF8: return "invalid UTF-8"
        case .nulByte: return "NUL byte in line"
        case .emptyLine: return "empty line"
        case .notJSONObject: return "not a JSON object"
        case .notValidJSONObject: return "not a valid JSON object"
        case .trailingCharacters(let c): return "unexpected characters after the JSON object at column \(c)"
        case .unterminatedString(let c): return c.map { "unterminated string at column \($0)" } ?? "unterminated string"
        case .tooLargeToUnescape: return "line too large to unescape"
        case .badUnicodeEscape(let c): return "bad \\u escape at column \(c)"
        case .badEscape(let e, let c): return "bad escape '\\\(e)' at column \(c)"
        case .unexpectedEndOfLine: return "unexpected end of line"
        case .unexpectedEndInsideObject: return "unexpected end of line inside an object"
        case .nestedTooDeeply: return "JSON nested too deeply"
        case .unexpectedCharacter(let c): return "unexpected character at column \(c)"
        case .badJSONValue(let c): return "bad value at column \(c)"
        case .expectedKey(let c): return "expected a key at column \(c)"
        case .expectedColon(let c): return "expected ':' at column \(c)"
        case .expectedCommaOrBrace(let c): return "expected ',' or '}' at column \(c)"
        case .textBetweenJSONRecords: return "unexpected text between JSON records"
        case .jsonRecordTooLong: return "JSON record longer than 1 MiB"
        case .jsonRecordNotClosed: return "JSON record not closed before the end of the file"
        case .unbalancedQuotes: return "unbalanced quotes"
        case .csvFieldNeverClosed: return "quoted CSV field never closed (over 1 MiB)"
        case .csvFieldNotClosedAtEnd: return "quoted CSV field never closed before the end of the file"
        case .csvHeaderWithoutTime(let h): return "CSV header has no time column: \(h)"
        case .csvFieldCount(let row, let header): return "CSV row has \(row) fields, the header has \(header)"
        case .notLogfmt: return "not a logfmt line (unbalanced quotes?)"
        case .notAppleMetricsHeader: return "not an Apple delivery-metrics header (Push Type, Status, Date (UTC), Count)"
        case .fieldCount(let n): return "row has \(n) fields"
        case .badDate(let d): return "bad date '\(d)'"
        case .badCount(let c): return "bad count '\(c)'"
        case .outOfRange(let f): return "\(f) out of range"
        case .notAnInteger(let f, let t): return "\(f) is not an integer: \(t)"
        case .badValue(let f, let t): return "bad \(f): '\(t)'"
        case .timeMismatch(let v): return "time '\(v)' does not match the format's time-format"
        case .foreignRecord: return "a record of another tool that pushlog does not read"
        case .unknownEventKind(let k): return "unknown event kind '\(k)'"
        case .unknownKind: return "cannot tell the record kind (no 'event' field)"
        case .missingField(let f): return "missing required field '\(f)'"
        case .missingDeviceOrUser: return "missing required field 'device' or 'user'"
        case .badAuth(let a): return "bad auth '\(a)'"
        case .emptyToken: return "empty token"
        case .statusOutOfRange(let s): return "status out of range: \(s)"
        case .unreadableShape(let why): return why
        case .incompleteRecord(let format, let missing): return "\(format) without \(missing)"
        }
    }
}
