/// AWS Pinpoint / End User Messaging push results: records (or their `attributes`) with a
/// `channelType`, a `deliveryStatus` and APNs' answer in `pushProviderResponse` (a JSON body with
/// `reason`, or the reason itself). APNS is production, APNS_SANDBOX sandbox (VOIP variants are
/// voip pushes); other channels (GCM, BAIDU, ADM, SMS, EMAIL, …) are skipped. SUCCESSFUL is 200;
/// a failure takes its status from `statusCode` or the reason; a failure with neither never
/// reached APNs (a transport failure, its delivery status in `error`).
enum PinpointPush {
    static func entries(_ v: JSONValue, _ when: ToolRecordTime) -> [BundledRecord]? {
        let scopes = [v, v.first("attributes"), v.first("metrics")].compactMap { $0 }
        func value(_ keys: String...) -> String? {
            for s in scopes { for k in keys { if let x = s.first(k)?.string, !x.isEmpty { return x } } }
            return nil
        }
        guard let channel = value("channelType", "channel_type")?.uppercased() else { return nil }
        guard channel.hasPrefix("APNS") else { return [.skip] }
        let time = ToolRecordTime(
            time: value("event_timestamp", "eventTimestamp", "arrival_timestamp") ?? when.time, fromLine: when.fromLine)
        guard let token = value("address", "token", "endpointAddress", "deviceToken") else {
            return [.reject(.unreadableShape("Pinpoint push result without a token (address)"))]
        }
        var f: [(Field, String, ValueType)] = [(.token, token, .string)]
        f.append((.env, channel.contains("SANDBOX") ? "sandbox" : "production", .string))
        if channel.contains("VOIP") { f.append((.pushType, "voip", .string)) }
        if let id = value("messageId", "message_id") { f.append((.apnsID, id, .string)) }
        let delivery = value("deliveryStatus", "delivery_status")?.uppercased() ?? ""
        var reason: String?
        if let pr = value("pushProviderResponse", "push_provider_response") {
            reason = JSONValue.parse(pr)?.first("reason")?.string ?? (ReasonTaxonomy.isAPNsReason(pr) ? pr : nil)
        }
        if delivery == "SUCCESSFUL" || delivery == "SUCCESS" {
            f.append((.status, "200", .number))
        } else if let status = value("statusCode", "status_code")
            ?? reason.flatMap({ ReasonTaxonomy.status(forReason: $0).map(String.init) })
        {
            f.append((.status, status, .number))
            if let reason { f.append((.reason, reason, .string)) }
        } else if let reason {
            f.append((.status, "0", .number))
            f.append((.reason, reason, .string))
        } else {
            f.append((.error, delivery.isEmpty ? "no delivery status" : delivery, .string))
        }
        return [time.record("send", f, shape: "Pinpoint push result")]
    }
}
