/// One record of a line that packs several (node-apn's result object, Expo tickets, gorush's
/// API response), as the fields a format read from it.
enum BundledRecord {
    case record(kind: StaticString, fields: [(Field, String, ValueType)])
    /// A record of another platform.
    case skip
    case ignore
    case reject(RejectReason)
}

extension EventBuilder {
    /// Builds a packed record into the builder, validated like a record of its own line: nil
    /// when `event` holds it, else why it is rejected.
    func build(kind: StaticString, fields: [(Field, String, ValueType)], lineTime: Int64?) -> RejectReason? {
        reset()
        setKind(kind)
        for (f, v, t) in fields { assign(f, string: v, t) }
        return finish(lineTime: lineTime)
    }
}
