/// Other tools' JSON records that the canonical reader cannot take as they are, tried on a line
/// it rejected (so the canonical hot path never pays for them): node-apn's whole result object,
/// Expo tickets and receipts, Braze Currents push events, Pinpoint push results.
enum ToolRecordShapes {
    /// The records of `v`, or nil when it is none of these shapes. `time` is the record's own time
    /// or its line prefix's; `lineTime` says a syslog prefix gave one.
    static func entries(_ v: JSONValue, time: String?, lineTime: Bool) -> [BundledRecord]? {
        let t = time ?? v.first("time", "timestamp", "ts", "@timestamp")?.string
        let when = ToolRecordTime(time: t, fromLine: lineTime)
        return NodeAPNResult.entries(v, when) ?? ExpoPush.entries(v, when) ?? BrazeCurrents.entries(v, when)
            ?? PinpointPush.entries(v, when)
    }
}

/// The time a record of another tool's shape gets, or the reject that says it has none.
struct ToolRecordTime {
    let time: String?
    let fromLine: Bool

    /// `fields` with the time added, or a reject naming the shape when there is no time at all.
    func record(_ kind: StaticString, _ fields: [(Field, String, ValueType)], shape: String) -> BundledRecord {
        if let time { return .record(kind: kind, fields: [(.time, time, .string)] + fields) }
        if fromLine { return .record(kind: kind, fields: fields) }
        return .reject(
            .incompleteRecord(
                format: shape, missing: "a time (the body has none: log it after a timestamp prefix or with a \"time\" key)"))
    }
}
