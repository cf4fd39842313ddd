/// A second, sloppier sender in the demo: a widgets app (its own topic and tokens) whose
/// provider breaks the rules the hygiene report checks that the main provider keeps —
/// background pushes with an alert, alert pushes with nothing to show, mutable-content without
/// an alert, and retries after 429/503 with no backoff. Its records come from their own random
/// stream and topic, so the main app's records and figures are the same with or without it.
extension DemoGenerator {
    static let widgetsTopic = "com.example.shop.widgets"

    /// The widget app's lines for one day.
    func sloppySender(dayStart: Int64, day: Int, provider: inout [(Int64, String)]) {
        var r = DemoRandom(seed: o.seed, 0x5106_9E45, UInt64(day) + 1)
        // A handful of tokens, the same every day (they never rotate: the app is not simulated).
        let tokens = (0..<6).map { k -> String in
            var t = DemoRandom(seed: o.seed, 0x5106_9E45, 0x10_0000 + UInt64(k))
            return t.hex(32)
        }
        func line(_ t: Int64, _ token: String, _ id: String, _ fields: String, status: Int, reason: String? = nil, attempt: Int = 1) -> (
            Int64, String
        ) {
            var l =
                "{\"time\":\"\(TimeFormat.rfc3339(ms: t))\",\"event\":\"send\",\"token\":\"\(token)\",\"apns_id\":\"\(id)\",\"env\":\"production\",\"topic\":\"\(DemoGenerator.widgetsTopic)\",\(fields),\"status\":\(status)"
            if let reason { l += ",\"reason\":\"\(reason)\"" }
            l += ",\"latency_ms\":\(20 + r.int(60)),\"attempt\":\(attempt)}"
            return (t, l)
        }
        let background = "\"push_type\":\"background\",\"priority\":5"
        let alert = "\"push_type\":\"alert\",\"priority\":10"
        for token in tokens {
            let t = r.range(dayStart + 9 * DemoGenerator.hour, dayStart + 21 * DemoGenerator.hour)
            switch r.int(8) {
            case 0:  // a widget refresh that also carries a badge: iOS may show it, or throttle it
                provider.append(
                    line(t, token, r.uuid(), background + ",\"payload\":{\"aps\":{\"content-available\":1,\"badge\":3}}", status: 200))
            case 1:  // an alert push whose aps is empty: it arrives as nothing
                provider.append(line(t, token, r.uuid(), alert + ",\"payload\":{\"aps\":{},\"widget\":\"weather\"}", status: 200))
            case 2:  // mutable-content with only a sound: the service extension never runs
                provider.append(
                    line(t, token, r.uuid(), alert + ",\"payload\":{\"aps\":{\"mutable-content\":1,\"sound\":\"default\"}}", status: 200))
            case 3:  // 503, retried after 300 ms with the same apns-id
                let id = r.uuid()
                let fields = alert + ",\"payload\":{\"aps\":{\"alert\":{\"title\":\"Rain at 5\"}}}"
                provider.append(line(t, token, id, fields, status: 503, reason: "ServiceUnavailable"))
                provider.append(line(t + 300, token, id, fields, status: 200, attempt: 2))
            case 4:  // 429, retried after 2 s (429 again), then after 1.5 s: the wait shrank
                let id = r.uuid()
                let fields = background + ",\"payload\":{\"aps\":{\"content-available\":1}}"
                provider.append(line(t, token, id, fields, status: 429, reason: "TooManyRequests"))
                provider.append(line(t + 2000, token, id, fields, status: 429, reason: "TooManyRequests", attempt: 2))
                provider.append(line(t + 3500, token, id, fields, status: 200, attempt: 3))
            default:  // a well-formed refresh
                provider.append(line(t, token, r.uuid(), background + ",\"payload\":{\"aps\":{\"content-available\":1}}", status: 200))
            }
        }
    }
}
