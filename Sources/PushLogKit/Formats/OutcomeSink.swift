/// What a format reported for a line, as `OutcomeSink` keeps it.
enum ParseOutcome: Equatable {
    /// A valid record (the sink's `builder.event` holds the last one).
    case event
    case reject(RejectReason)
    case skip
    case ignore
    case metric(DailyCount)
}

extension RecordSink {
    /// Reports one outcome (`.event`: `builder.event` holds the record), for formats that
    /// decide a line's single result in one place.
    func report(_ outcome: ParseOutcome) {
        switch outcome {
        case .event: record(nil)
        case .reject(let r): reject(r, nil)
        case .skip: skip()
        case .ignore: ignore()
        case .metric(let m): metric(m)
        }
    }
}

/// A sink that keeps the outcomes of the lines it is given (entries of a packed record in
/// order), for format detection, a definition's samples and tests.
final class OutcomeSink: RecordSink {
    let builder = EventBuilder()
    /// What the lines since the last `clear` gave; empty for a line inside an open record.
    private(set) var outcomes: [ParseOutcome] = []

    func clear() { outcomes.removeAll(keepingCapacity: true) }

    /// The outcomes of one line.
    func parse(_ line: ByteSlice, number: Int, lineTime: Int64? = nil, with format: LineFormat) -> [ParseOutcome] {
        clear()
        format.parse(line, number: number, lineTime: lineTime, into: self)
        return outcomes
    }

    func record(_ span: RecordSpan?) { outcomes.append(.event) }
    func reject(_ reason: RejectReason, _ span: RecordSpan?) { outcomes.append(.reject(reason)) }
    func skip() { outcomes.append(.skip) }
    func ignore() { outcomes.append(.ignore) }
    func metric(_ count: DailyCount) { outcomes.append(.metric(count)) }

    func entries(_ entries: [BundledRecord], of span: RecordSpan?, lineTime: Int64?) {
        for entry in entries {
            switch entry {
            case .skip: outcomes.append(.skip)
            case .ignore: outcomes.append(.ignore)
            case .reject(let r): outcomes.append(.reject(r))
            case .record(let kind, let fields):
                if let r = builder.build(kind: kind, fields: fields, lineTime: lineTime) {
                    outcomes.append(.reject(r))
                } else {
                    outcomes.append(.event)
                }
            }
        }
    }
}
