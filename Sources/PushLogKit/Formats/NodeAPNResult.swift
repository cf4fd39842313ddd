/// node-apn's whole result object, as apps log it with `JSON.stringify(result)`:
/// `{"sent":[{"device"}],"failed":[{"device","status","response":{"reason","timestamp"}},
/// {"device","error"}]}`. One send per entry: sent is 200; failed has APNs' status and reason,
/// or an `error` (no APNs response: a transport failure).
enum NodeAPNResult {
    static func entries(_ v: JSONValue, _ when: ToolRecordTime) -> [BundledRecord]? {
        let sent = v.first("sent"), failed = v.first("failed")
        var list: [JSONValue] = []
        var ok: [Bool] = []
        if case .array(let a)? = sent { list += a; ok += a.map { _ in true } }
        if case .array(let a)? = failed { list += a; ok += a.map { _ in false } }
        guard sent != nil || failed != nil, v.first("data") == nil else { return nil }
        var entries = zip(list, ok).map { entry($0, sent: $1, when) }
        // util.inspect cut the whole list (`failed: [Array]`): how many entries is unknown.
        if case .null? = failed { entries.append(.reject(cut("failed list", "[Array]", missing: "its entries"))) }
        return entries
    }

    /// Why an entry util.inspect cut to a placeholder cannot be stored.
    static func cut(_ what: String, _ placeholder: String, missing: String = "its token and status") -> RejectReason {
        .incompleteRecord(
            format: "node-apn \(what) (util.inspect printed \(placeholder))",
            missing: "\(missing) (log the result with JSON.stringify or util.inspect's depth: null)")
    }

    /// One entry of `sent` or `failed`; a null one is an entry util.inspect cut to `[Object]`.
    static func entry(_ entry: JSONValue, sent isSent: Bool, _ when: ToolRecordTime) -> BundledRecord {
        if case .null = entry { return .reject(cut(isSent ? "sent entry" : "failed entry", "[Object]")) }
        guard let device = entry.first("device")?.string, !device.isEmpty else {
            return .reject(.unreadableShape("node-apn result entry without a device"))
        }
        var f: [(Field, String, ValueType)] = [(.token, device, .string)]
        if isSent {
            f.append((.status, "200", .number))
        } else if let status = entry.first("status")?.string {
            let reason = entry.first("response")?.first("reason")?.string
            if reason == nil, let code = Int(status), let legacy = LegacyAPNsError(code: code) {
                f.append((.status, String(legacy.status), .number))
                f.append((.reason, legacy.reason.description, .string))
            } else {
                f.append((.status, status, .number))
                if let reason { f.append((.reason, reason, .string)) }
            }
            if let ts = entry.first("response")?.first("timestamp")?.string { f.append((.apnsTimestamp, ts, .number)) }
        } else {
            f.append((.error, errorText(entry.first("error")), .string))
        }
        return when.record("send", f, shape: "node-apn result")
    }

    /// An Error serialised by JSON.stringify is often `{}`: its message, code, or a plain note.
    static func errorText(_ e: JSONValue?) -> String {
        if let s = e?.string, !s.isEmpty { return s }
        if let m = e?.first("message")?.string, !m.isEmpty { return m }
        if let c = e?.first("code")?.string, !c.isEmpty { return c }
        return "connection error (no detail logged)"
    }
}

/// The error codes of APNs' legacy binary protocol, which node-apn 1.x reported as a result's
/// status (8 for an invalid token): the HTTP/2 status and reason each stands for. 255 ("none",
/// an unknown error) has no reason: it is kept as status 0, reason `unknown`.
struct LegacyAPNsError {
    let status: Int
    let reason: StaticString

    init?(code: Int) {
        switch code {
        case 1: (status, reason) = (500, "InternalServerError")  // processing error
        case 2: (status, reason) = (400, "MissingDeviceToken")
        case 3: (status, reason) = (400, "MissingTopic")
        case 4: (status, reason) = (400, "PayloadEmpty")
        case 5, 8: (status, reason) = (400, "BadDeviceToken")  // invalid token size, invalid token
        case 6: (status, reason) = (400, "BadTopic")
        case 7: (status, reason) = (413, "PayloadTooLarge")
        case 10: (status, reason) = (503, "Shutdown")
        case 255: (status, reason) = (0, "unknown")
        default: return nil
        }
    }
}
