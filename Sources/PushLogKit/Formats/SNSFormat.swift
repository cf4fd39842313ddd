/// AWS SNS delivery-status records (CloudWatch Logs): `{"notification": {...}, "delivery":
/// {...}, "status"}`. APNS destinations are production, APNS_SANDBOX sandbox, the app name is
/// the topic; other platforms are skipped.
final class SNSFormat: LineFormat {
    let name = "sns"
    init() {}

    func parse(_ line: ByteSlice, number: Int, lineTime: Int64?, into sink: RecordSink) {
        sink.report(read(line, sink.builder, lineTime: lineTime))
    }

    func read(_ line: ByteSlice, _ builder: EventBuilder, lineTime: Int64?) -> ParseOutcome {
        guard let start = line.firstIndex(of: 0x7B), let v = JSONValue.parse(ByteSlice(rebasing: line[start...])) else {
            return .reject(.notJSONObject)
        }
        guard let delivery = v["delivery"], let notification = v["notification"] else {
            return .reject(.unreadableShape("not an SNS delivery-status record (no delivery/notification)"))
        }
        let dest = delivery["destination"]?.string ?? ""
        // arn:aws:sns:REGION:ACCOUNT:endpoint/PLATFORM/APP/ID
        guard dest.contains(":endpoint/") else {
            // SMS (a phone number, or a record with an SMS type), email, SQS, Lambda, HTTP:
            // positively not a push endpoint.
            if SNSFormat.isOtherDestination(dest) || delivery["smsType"] != nil { return .skip }
            return .reject(
                .unreadableShape(
                    dest.isEmpty ? "SNS record without a destination" : "SNS destination is not an endpoint ARN: \(dest.prefix(80))"))
        }
        let parts = dest.split(separator: "/").map(String.init)
        let platform = parts.count >= 2 ? parts[1] : ""
        guard platform == "APNS" || platform == "APNS_SANDBOX" || platform == "APNS_VOIP" || platform == "APNS_VOIP_SANDBOX" else {
            return platform.isEmpty ? .reject(.unreadableShape("SNS endpoint ARN without a platform")) : .skip
        }
        builder.reset()
        builder.setKind("send")
        builder.assign(.env, string: platform.hasSuffix("SANDBOX") ? "sandbox" : "production")
        if parts.count >= 3 { builder.assign(.topic, string: parts[2]) }
        if platform.hasPrefix("APNS_VOIP") { builder.assign(.pushType, string: "voip") }
        if let t = notification["timestamp"]?.string { builder.assign(.time, string: t) }
        if let tok = delivery["token"]?.string { builder.assign(.token, string: tok) }
        if let s = delivery["statusCode"]?.string { builder.assign(.status, string: s, .number) }
        if let d = delivery["dwellTimeMs"]?.string { builder.assign(.latencyMs, string: d, .number) }
        if let a = delivery["attempts"]?.string { builder.assign(.attempt, string: a, .number) }
        if let pr = delivery["providerResponse"]?.string, let reason = SNSFormat.reason(pr) {
            builder.assign(.reason, string: reason)
            if let ts = JSONValue.parse(pr)?["timestamp"]?.string { builder.assign(.apnsTimestamp, string: ts, .number) }
        }
        if let r = builder.finish(lineTime: lineTime) { return .reject(r) }
        return .event
    }

    /// A destination SNS delivers to that is not a mobile push endpoint.
    static func isOtherDestination(_ d: String) -> Bool {
        // SNS masks part of the number in its SMS records: "+1XXX5550100".
        if let f = d.first, f == "+" || f.isNumber {
            return d.dropFirst().allSatisfy { $0.isNumber || $0 == " " || $0 == "-" || $0 == "X" || $0 == "x" }
        }
        if d.contains("@") || d.hasPrefix("http://") || d.hasPrefix("https://") { return true }
        return ["arn:aws:sqs:", "arn:aws:lambda:", "arn:aws:firehose:"].contains { d.hasPrefix($0) }
    }

    /// The reason of a providerResponse: a JSON body with `reason`, or the legacy
    /// `NotificationErrorResponse(command=8, status=InvalidToken, ...)` form.
    static func reason(_ pr: String) -> String? {
        if let j = JSONValue.parse(pr), let r = j["reason"]?.string, !r.isEmpty { return r }
        if let r = pr.range(of: "status=") {
            let rest = pr[r.upperBound...]
            let v = rest.prefix { $0 != "," && $0 != ")" && $0 != " " }
            return v.isEmpty ? nil : String(v)
        }
        return nil
    }
}
