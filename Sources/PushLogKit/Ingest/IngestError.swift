/// Failures of the ingest layer itself, each naming the file (input and store failures keep
/// their own types, `InputError` and `StoreError`).
enum IngestError: Error, CustomStringConvertible {
    /// The file vanished or cannot be stat'ed between listing and reading.
    case cannotStat(file: String)
    /// `--input-format` names a format that neither a built-in reader nor a definition provides.
    case unknownInputFormat(file: String, name: String)
    /// The writer gave up on the file (a database error): the parsing thread stops quietly.
    case cancelled

    var description: String {
        switch self {
        case .cannotStat(let file): return "\(file): cannot read: cannot stat"
        case .unknownInputFormat(let file, let name): return "\(file): cannot read: unknown input format \(name)"
        case .cancelled: return "ingest cancelled"
        }
    }
}
