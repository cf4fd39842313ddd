/// What a report's figure needs the records to carry (`needs=` on its `-- column:` line). Where
/// the range's records do not carry it the figure is not observable: empty, with a note naming
/// what is missing, never a 0 that reads as healthy. Each need is measured over the range by
/// every engine (`NeedCoverage`) as the share of its records that carry it.
public enum RecordNeed: String, CaseIterable, Sendable {
    /// The responses carry the APNs environment (production or sandbox).
    case env
    /// The responses carry the device token.
    case token
    /// The 410 (token gone) responses carry the device token.
    case goneToken = "gone_token"
    /// The logs hold the app's registrations (any, up to the range's end), judged for a range
    /// that holds responses (one without any is said to be empty elsewhere).
    case registrations
    /// The registrations carry a device id.
    case device

    /// Measured as present or not before a range's end, not as a share of records.
    var isPresence: Bool { self == .registrations || self == .device }

    /// What the records a figure counts lack, as a note says it.
    var missing: String {
        switch self {
        case .env: return "the responses carry no APNs env"
        case .token: return "the responses carry no device token"
        case .goneToken: return "the 410 responses carry no device token"
        case .registrations: return "the logs hold no registrations"
        case .device: return "the registrations carry no device id"
        }
    }

    /// The records whose share a partial coverage is of ("80% of the responses").
    var records: String {
        switch self {
        case .env, .token: return "responses"
        case .goneToken: return "410 responses"
        case .registrations, .device: return "registrations"
        }
    }

    /// What the covered records carry ("a device token"), for the note on a partial figure.
    var carried: String {
        switch self {
        case .env: return "an APNs env"
        case .token, .goneToken: return "a device token"
        case .registrations: return "registrations"
        case .device: return "a device id"
        }
    }
}
