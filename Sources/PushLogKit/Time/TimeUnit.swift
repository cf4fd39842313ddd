/// The time units of `--by` (UTC buckets).
public enum TimeUnit: String, CaseIterable, Sendable {
    case minute
    case fiveMinutes = "5m"
    case hour, day, week

    /// Start of the bucket holding `ms`.
    public func start(_ ms: Int64) -> Int64 {
        switch self {
        case .week: return TimeFormat.weekStart(ms: ms)
        default: return TimeFormat.floorDiv(ms, step) * step
        }
    }

    public var step: Int64 {
        switch self {
        case .minute: return 60_000
        case .fiveMinutes: return 300_000
        case .hour: return 3_600_000
        case .day: return 86_400_000
        case .week: return 7 * 86_400_000
        }
    }

    func label(_ ms: Int64) -> String { TimeFormat.bucket(ms: ms, by: rawValue) }
}
