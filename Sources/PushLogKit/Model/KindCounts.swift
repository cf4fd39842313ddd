/// A count per record kind (records stored, per file and per run), indexed by `EventKind`.
public struct KindCounts: Equatable, Sendable {
    private var counts = [Int](repeating: 0, count: EventKind.allCases.count)

    public init() {}

    public subscript(kind: EventKind) -> Int {
        get { counts[kind.rawValue] }
        set { counts[kind.rawValue] = newValue }
    }

    /// Every kind's count added up.
    public var total: Int { counts.reduce(0, +) }

    public static func += (lhs: inout KindCounts, rhs: KindCounts) {
        for k in EventKind.allCases { lhs[k] += rhs[k] }
    }
}
