/// Expo push service bodies. Tickets (`{"data":[{"status":"ok","id"},{"status":"error","message",
/// "details":{"error"}}]}`) and receipts keyed by ticket id (`{"data":{"ID":{"status":"ok"},…}}`).
/// A receipt is a `response` whose apns_id is the ticket id, so it joins the ticket's request; an
/// ok ticket is a `request` when the line names the token (`to`), else ignored; an error ticket
/// is a send to the token its message quotes. Expo errors map to APNs reasons (`DeviceNotRegistered`
/// is the token gone, 410); others are kept verbatim (category unknown). Expo does not say which
/// platform a ticket went to, so every entry counts as a push of the app.
enum ExpoPush {
    /// Expo error -> (APNs reason, status).
    static let reasons: [String: (String, Int)] = [
        "DeviceNotRegistered": ("Unregistered", 410),
        "MessageTooBig": ("PayloadTooLarge", 413),
        "MessageRateExceeded": ("TooManyRequests", 429),
        "InvalidCredentials": ("InvalidProviderToken", 403),
    ]

    static func entries(_ v: JSONValue, _ when: ToolRecordTime) -> [BundledRecord]? {
        guard let data = v.first("data") else { return nil }
        switch data {
        case .array(let tickets) where tickets.allSatisfy({ $0.first("status") != nil }):
            return tickets.map { ticket(t: $0, token: v.first("to")?.string, when) }
        case .object(let receipts) where !receipts.isEmpty && receipts.allSatisfy({ $0.1.first("status") != nil }):
            return receipts.map { id, r in
                var f: [(Field, String, ValueType)] = [(.apnsID, id, .string)]
                f += outcome(r)
                return when.record("response", f, shape: "Expo receipt")
            }
        default:
            return nil
        }
    }

    static func ticket(t: JSONValue, token: String?, _ when: ToolRecordTime) -> BundledRecord {
        let token = t.first("to", "token")?.string ?? token ?? quotedToken(t.first("message")?.string ?? "")
        if t.first("status")?.string == "ok" {
            guard let id = t.first("id")?.string, let token else { return .ignore }
            return when.record("request", [(.apnsID, id, .string), (.token, token, .string)], shape: "Expo ticket")
        }
        guard let token else { return .reject(.unreadableShape("Expo error ticket without a token in its message")) }
        var f: [(Field, String, ValueType)] = [(.token, token, .string)]
        if let id = t.first("id")?.string { f.append((.apnsID, id, .string)) }
        return when.record("send", f + outcome(t), shape: "Expo ticket")
    }

    /// Status and reason of an ok or error ticket/receipt.
    static func outcome(_ r: JSONValue) -> [(Field, String, ValueType)] {
        if r.first("status")?.string == "ok" { return [(.status, "200", .number)] }
        let err = r.first("details")?.first("error")?.string ?? "ExpoError"
        let (reason, status) = reasons[err] ?? (err, ReasonTaxonomy.status(forReason: err) ?? 0)
        return [(.status, String(status), .number), (.reason, reason, .string)]
    }

    /// `"ExponentPushToken[xxx]" is not a registered push notification recipient` -> the token.
    static func quotedToken(_ message: String) -> String? {
        for prefix in ["ExponentPushToken[", "ExpoPushToken["] {
            guard let start = message.range(of: prefix), let end = message[start.upperBound...].firstIndex(of: "]") else { continue }
            return String(message[start.lowerBound...end])
        }
        return nil
    }
}
