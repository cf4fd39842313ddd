/// One record of a line that packs several (node-apn's result object, Expo tickets, gorush's
/// API response), as the fields a format read from it.
enum PackedEntry {
    case record(kind: StaticString, fields: [(Field, String, ValueType)])
    /// A record of another platform.
    case skip
    case ignore
    case reject(RejectReason)
}

/// Hands out the records of one line one at a time through the shared builder, so each is
/// validated like a record of its own line.
final class PackedEntries {
    private var entries: [PackedEntry] = []
    private var next = 0

    func load(_ e: [PackedEntry]) {
        entries = e
        next = 0
    }

    func take(_ builder: EventBuilder) -> ParseOutcome? {
        guard next < entries.count else {
            entries = []
            return nil
        }
        defer { next += 1 }
        switch entries[next] {
        case .skip: return .skip
        case .ignore: return .ignore
        case .reject(let r): return .reject(r)
        case .record(let kind, let fields):
            builder.reset()
            builder.setKind(kind)
            for (f, v, t) in fields { builder.assign(f, string: v, t) }
            if let r = builder.finish() { return .reject(r) }
            return .event
        }
    }
}
