/// Validation and normalisation of a collected record against the event schema.
extension EventBuilder {
    /// Infers the kind, applies defaults and checks required fields. Returns a reject reason or nil.
    /// `lineTime` (a line prefix's time) is the record's time when it has none of its own.
    func finish(lineTime: Int64?) -> RejectReason? {
        if let problem { return problem }
        // Another tool's record (Braze, Pinpoint) unless the line names a canonical `event`.
        if foreignShape && eventName == nil { return .foreignRecord }
        var e = event
        // A top-level `timestamp` is the record time, unless the record is a 410 body (then it is APNs' timestamp).
        if let ts = topTimestamp {
            let isGoneBody = e.status == 410 || (e.reason.map { $0.equalsASCII("unregistered") || $0.equalsASCII("expiredtoken") } ?? false)
            if e.time == nil && !isGoneBody {
                e.time = parseTime(ts, "timestamp")
            } else if e.apnsTimestamp == nil && isGoneBody {
                e.apnsTimestamp = parseTime(ts, "timestamp")
            }
            if let problem { return problem }
        }
        if e.time == nil { e.time = lineTime }
        // node-apn results name the token `device`.
        if eventName == nil && e.token == nil && e.device != nil && (e.status != nil || e.error != nil) {
            e.token = e.device
            e.device = nil
            if let s = e.status, e.reason == nil, s < 256, let legacy = LegacyAPNsError(code: Int(s)) {
                e.status = Int64(legacy.status)
                e.reason = store(legacy.reason)
            }
        }
        if let name = eventName {
            guard let k = EventBuilder.kind(name) else {
                return .unknownEventKind(String(decoding: name.prefix(40), as: UTF8.self))
            }
            e.kind = k
        } else {
            e.kind = inferKind(e)
        }
        guard var kind = e.kind else { return .unknownKind }
        guard e.time != nil else { return .missingField("time") }
        if kind == .send && e.token == nil && unknownTokenIsResponse && (e.status != nil || e.reason != nil) {
            kind = .response
            e.kind = kind
        }
        switch kind {
        case .send:
            if e.token == nil { return .missingField("token") }
            if e.status == nil, let r = e.reason { e.status = ReasonTaxonomy.status(forReason: r.string).map { Int64($0) } }
            if e.status == nil && e.error == nil { return .missingField("status") }
        case .response where unknownTokenIsResponse:
            if e.status == nil, let r = e.reason { e.status = ReasonTaxonomy.status(forReason: r.string).map { Int64($0) } }
            if e.status == nil { return .missingField("status") }
        case .request:
            if e.token == nil { return .missingField("token") }
            if e.apnsID == nil { return .missingField("apns_id") }
        case .response:
            if e.apnsID == nil { return .missingField("apns_id") }
            if e.status == nil { return .missingField("status") }
        case .register, .unregister:
            if e.token == nil { return .missingField("token") }
        case .settings:
            if e.auth == nil { return .missingField("auth") }
            if e.device == nil && e.user == nil { return .missingDeviceOrUser }
        case .receipt:
            if e.apnsID == nil { return .missingField("apns_id") }
        }
        if let env = e.env { e.env = normalizeEnv(env) }
        if let p = e.pushType { e.pushType = normalizePushType(p) }
        if let a = e.auth {
            guard let n = normalizeAuth(a) else { return .badAuth(String(decoding: a.prefix(40), as: UTF8.self)) }
            e.auth = n
        }
        if let t = e.token {
            if t.count == 0 { return .emptyToken }
            normalizeToken(t, into: &e)
        }
        if let s = e.status, s < 0 || s > 999 { return .statusOutOfRange(s) }
        event = e
        return nil
    }

    static func kind(_ s: ByteSlice) -> EventKind? {
        if s.equalsASCII("send") { return .send }
        if s.equalsASCII("request") { return .request }
        if s.equalsASCII("response") { return .response }
        if s.equalsASCII("register") || s.equalsASCII("registration") { return .register }
        if s.equalsASCII("settings") { return .settings }
        if s.equalsASCII("receipt") { return .receipt }
        if s.equalsASCII("unregister") { return .unregister }
        return nil
    }

    func inferKind(_ e: Event) -> EventKind? {
        if e.status != nil || e.error != nil { return e.token != nil ? .send : .response }
        if e.receipt != nil { return .receipt }
        if e.auth != nil && e.token == nil { return .settings }
        if e.token != nil && (e.device != nil || e.user != nil || e.appVersion != nil) { return .register }
        return nil
    }

    func normalizeEnv(_ v: ByteSlice) -> ByteSlice {
        if v.equalsASCII("production") || v.equalsASCII("prod") { return store("production") }
        if v.equalsASCII("sandbox") || v.equalsASCII("development") || v.equalsASCII("dev") { return store("sandbox") }
        if let h = envFromHost(v) { return h }
        return v
    }

    /// APNs push types are lower case (`apns-push-type: alert`); a log that writes `Alert` means the
    /// same, and the rules that test for alert or background pushes must see it. Others stay as logged.
    func normalizePushType(_ v: ByteSlice) -> ByteSlice {
        for t in PushType.names where v.equalsASCII(t) { return store(t) }
        return v
    }

    func normalizeAuth(_ v: ByteSlice) -> ByteSlice? {
        if v.equalsASCII("authorized") || v.equalsASCII("2") { return store("authorized") }
        if v.equalsASCII("denied") || v.equalsASCII("1") { return store("denied") }
        if v.equalsASCII("provisional") || v.equalsASCII("3") { return store("provisional") }
        if v.equalsASCII("ephemeral") || v.equalsASCII("4") { return store("ephemeral") }
        if v.equalsASCII("notdetermined") || v.equalsASCII("not_determined") || v.equalsASCII("0") { return store("notDetermined") }
        return nil
    }

    /// Expo's push tokens (`ExponentPushToken[…]`, `ExpoPushToken[…]`) are tokens of their own
    /// form, not malformed APNs tokens.
    static func isExpoToken(_ t: ByteSlice) -> Bool {
        guard t.count > 15, t[t.count - 1] == 0x5D else { return false }
        let s = String(decoding: t, as: UTF8.self)
        return s.hasPrefix("ExponentPushToken[") || s.hasPrefix("ExpoPushToken[")
    }

    /// Hex tokens are folded to lower case; anything else is kept as given and flagged.
    func normalizeToken(_ t: ByteSlice, into e: inout Event) {
        var hex = true, upper = false, masked = false
        for c in t {
            switch c {
            case 0x30...0x39, 0x61...0x66: break
            case 0x41...0x46: upper = true
            case 0x2A: masked = true; hex = false
            default: hex = false
            }
        }
        e.tokenMalformed = !hex && !EventBuilder.isExpoToken(t)
        e.tokenMasked = masked
        if hex && upper, let dst = allocate(t.count) {
            for i in 0..<t.count { dst[i] = t[i] >= 0x41 && t[i] <= 0x46 ? t[i] | 0x20 : t[i] }
            e.token = ByteSlice(start: dst, count: t.count)
        }
    }
}
