/// A count per record kind (records stored, per file and per run), indexed by `EventKind`.
struct KindCounts: Equatable, Sendable {
    private var counts = [Int](repeating: 0, count: EventKind.allCases.count)

    init() {}

    subscript(kind: EventKind) -> Int {
        get { counts[kind.rawValue] }
        set { counts[kind.rawValue] = newValue }
    }

    /// Every kind's count added up.
    var total: Int { counts.reduce(0, +) }

    static func += (lhs: inout KindCounts, rhs: KindCounts) {
        for k in EventKind.allCases { lhs[k] += rhs[k] }
    }
}
