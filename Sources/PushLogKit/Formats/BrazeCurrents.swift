/// Braze Currents push events, from their published schemas: flat records (storage exports,
/// Avro values possibly wrapped as `{"string": …}`), records with `user` and `properties`
/// objects (HTTP connectors), or a batch `{"events": [...]}`. The event type comes from
/// `event_type`; a record with `push_token_state_change_type` is a token state change.
///   users.behaviors.pushnotification.TokenStateChange: add/update -> register, remove -> unregister
///   users.messages.pushnotification.Bounce: APNs refused the token (Braze unsubscribes it) -> a
///     send with status 410 Unregistered
///   users.messages.pushnotification.Send: Braze does not say whether APNs accepted it -> a request
///     (never a response) when it names the push token, otherwise ignored
/// Other platforms (android, kindle, web) are skipped; a record without a platform is rejected.
enum BrazeCurrents {
    static let tokenChange = "users.behaviors.pushnotification.TokenStateChange"
    static let send = "users.messages.pushnotification.Send"
    static let bounce = "users.messages.pushnotification.Bounce"

    static func entries(_ v: JSONValue, _ when: ToolRecordTime) -> [BundledRecord]? {
        if case .array(let events)? = v.first("events"), events.contains(where: { $0.first("event_type") != nil }) {
            return events.map { one($0, when) ?? .ignore }
        }
        return one(v, when).map { [$0] }
    }

    /// A value from the record, its `user` or its `properties`.
    static func value(_ r: JSONValue, _ keys: String...) -> String? {
        for scope in [r, r.first("user"), r.first("properties")] {
            guard let scope else { continue }
            for k in keys { if let s = scope.first(k)?.string, !s.isEmpty { return s } }
        }
        return nil
    }

    static func one(_ r: JSONValue, _ outer: ToolRecordTime) -> BundledRecord? {
        let type = value(r, "event_type") ?? (value(r, "push_token_state_change_type") != nil ? tokenChange : nil)
        guard let type, type.hasPrefix("users.") else { return nil }
        guard type == tokenChange || type == send || type == bounce else { return .ignore }
        guard let platform = value(r, "platform")?.lowercased() else {
            return .reject(.unreadableShape("Braze \(type) without a platform"))
        }
        guard platform == "ios" else { return .skip }
        // Currents times are epoch seconds.
        let when = ToolRecordTime(time: value(r, "time") ?? outer.time, fromLine: outer.fromLine)
        var f: [(Field, String, ValueType)] = []
        let token = value(r, "push_token")
        if let token { f.append((.token, token, .string)) }
        if let d = value(r, "device_id") { f.append((.device, d, .string)) }
        if let u = value(r, "external_user_id", "user_id") { f.append((.user, u, .string)) }
        switch type {
        case tokenChange:
            let change = value(r, "push_token_state_change_type")?.lowercased() ?? ""
            guard token != nil else { return .reject(.unreadableShape("Braze token state change without a push_token")) }
            if change == "remove" { return when.record("unregister", f, shape: "Braze event") }
            if change == "add" || change == "update" { return when.record("register", f, shape: "Braze event") }
            return .reject(.unreadableShape("Braze token state change of unknown type '\(change.prefix(20))'"))
        case bounce:
            guard token != nil else { return .reject(.unreadableShape("Braze push bounce without a push_token")) }
            return when.record("send", f + [(.status, "410", .number), (.reason, "Unregistered", .string)], shape: "Braze event")
        default:
            guard token != nil, let id = value(r, "dispatch_id", "send_id", "id") else { return .ignore }
            return when.record("request", f + [(.apnsID, id, .string)], shape: "Braze event")
        }
    }
}
