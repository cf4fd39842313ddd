/// node-apn's whole result object, as apps log it with `JSON.stringify(result)`:
/// `{"sent":[{"device"}],"failed":[{"device","status","response":{"reason","timestamp"}},
/// {"device","error"}]}`. One send per entry: sent is 200; failed has APNs' status and reason,
/// or an `error` (no APNs response: a transport failure).
enum NodeAPNResult {
    static func entries(_ v: JSONValue, _ when: PackedTime) -> [PackedEntry]? {
        let sent = v.first("sent"), failed = v.first("failed")
        var list: [JSONValue] = []
        var ok: [Bool] = []
        if case .array(let a)? = sent { list += a; ok += a.map { _ in true } }
        if case .array(let a)? = failed { list += a; ok += a.map { _ in false } }
        guard sent != nil || failed != nil, v.first("data") == nil else { return nil }
        return zip(list, ok).map { entry, isSent in
            guard let device = entry.first("device")?.string, !device.isEmpty else {
                return .reject(.unreadableShape("node-apn result entry without a device"))
            }
            var f: [(Field, String, ValueType)] = [(.token, device, .string)]
            if isSent {
                f.append((.status, "200", .number))
            } else if let status = entry.first("status")?.string {
                f.append((.status, status, .number))
                if let r = entry.first("response") {
                    if let reason = r.first("reason")?.string { f.append((.reason, reason, .string)) }
                    if let ts = r.first("timestamp")?.string { f.append((.apnsTimestamp, ts, .number)) }
                }
            } else {
                f.append((.error, errorText(entry.first("error")), .string))
            }
            return when.record("send", f, shape: "node-apn result")
        }
    }

    /// An Error serialised by JSON.stringify is often `{}`: its message, code, or a plain note.
    static func errorText(_ e: JSONValue?) -> String {
        if let s = e?.string, !s.isEmpty { return s }
        if let m = e?.first("message")?.string, !m.isEmpty { return m }
        if let c = e?.first("code")?.string, !c.isEmpty { return c }
        return "connection error (no detail logged)"
    }
}
