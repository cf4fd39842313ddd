import Foundation

/// gorush logs: string mode (`| failed-push | ios [TOKEN] | MESSAGE | Error Message: REASON`)
/// and JSON mode (`{"type":"failed-push","platform":"ios","token",...,"error"}`), bare, inside a
/// logrus JSON (`{"level","msg","time"}`) or text wrapper (`time="..." level=... msg="..."`, or
/// on a terminal `ERRO[2018/04/11 - 23:15:11] | failed-push | ...`), and gorush's synchronous API
/// response body (`{"counts":…,"logs":[entries],"success":…}`). Status comes from the reason
/// (ReasonTaxonomy); an error that is not an APNs reason is a transport failure. Entries of another
/// platform are skipped only when it is named (android, huawei); other lines are ignored.
/// gaurun (mercari) writes the same JSON entries through zap; its `accepted-push` and
/// `disabled-push` say what gaurun did with a request, not what APNs answered, so only
/// `succeeded-push` and `failed-push` are records, and its errors are buford's sentences.
final class GorushFormat: LineFormat {
    let name = "gorush"
    static let otherPlatforms: Set<String> = ["android", "huawei"]

    init() {}

    /// What a line holds: one result, or the entries of an API response.
    enum Read {
        case one(ParseOutcome)
        case entries([BundledRecord])
    }

    func parse(_ line: ByteSlice, number: Int, lineTime: Int64?, into sink: RecordSink) {
        switch read(line, sink.builder, lineTime: lineTime) {
        case .one(let outcome): sink.report(outcome)
        case .entries(let entries): sink.entries(entries, of: nil, lineTime: lineTime)
        }
    }

    func read(_ line: ByteSlice, _ builder: EventBuilder, lineTime: Int64?) -> Read {
        var msg: String
        var time: String?
        let text = String(decoding: line, as: UTF8.self)
        if line.first == 0x7B {
            guard let v = JSONValue.parse(line) else { return .one(.reject(.notValidJSONObject)) }
            guard let m = v["msg"] else { return object(v, time: nil, builder, lineTime) }
            msg = m.string ?? ""
            time = v["time"]?.string
        } else if text.hasPrefix("time="), let pairs = LogfmtFormat.pairs(line) {
            msg = pairs.first { $0.0 == "msg" }?.1 ?? ""
            time = pairs.first { $0.0 == "time" }?.1
        } else if let (t, rest) = GorushFormat.levelPrefix(text) {
            // logrus's terminal formatter: a level, the time in brackets, the message.
            guard let t else {
                return .one(
                    text.contains("-push")
                        ? .reject(
                            .incompleteRecord(
                                format: "gorush line", missing: "a time (logrus printed seconds since start; enable full timestamps)"))
                        : .ignore)
            }
            msg = rest
            time = t
        } else if let brace = text.firstIndex(of: "{"), !text[..<brace].contains("|"),
            let v = JSONValue.parse(String(text[brace...]))
        {
            // JSON after a prefix (docker, CloudWatch): the prefix time counts when the entry has none.
            let prefix = Array(text[..<brace].utf8)
            let t = prefix.withUnsafeBufferPointer { PrefixTime.find($0) }
            return object(v, time: t.map { String($0) }, builder, lineTime)
        } else {
            msg = text
            // "[GORUSH] 2019/12/21 - 02:40:12 | ..." style prefixes carry the time; a line that
            // starts with the answer (`failed-push | ios …`, as gorush's command line prints it)
            // has none.
            if let bar = text.range(of: "|") {
                let head = String(text[..<bar.lowerBound])
                if !GorushFormat.answers.contains(where: { head.contains($0) }) { time = GorushFormat.prefixTime(head) }
            }
        }
        let trimmed = msg.trimmed()
        if trimmed.hasPrefix("{"), let v = JSONValue.parse(trimmed) { return object(v, time: time, builder, lineTime) }
        return .one(stringMode(trimmed, time: time, builder, lineTime))
    }

    /// `ERRO[2018/04/11 - 23:15:11] rest`: the bracketed time (nil when logrus printed seconds
    /// since start, `INFO[0042]`) and the rest; nil when the line has no such prefix.
    static func levelPrefix(_ s: String) -> (String?, String)? {
        guard let open = s.firstIndex(of: "["), let close = s[open...].firstIndex(of: "]") else { return nil }
        let level = s[..<open]
        guard (4...7).contains(level.count), level.allSatisfy({ $0.isASCII && $0.isUppercase }) else { return nil }
        let inside = String(s[s.index(after: open)..<close])
        let rest = String(s[s.index(after: close)...])
        return (inside.allSatisfy(\.isNumber) ? nil : inside, rest)
    }

    static func prefixTime(_ s: String) -> String? {
        let cleaned = s.replacingOccurrences(of: "[GORUSH]", with: "").trimmed()
        return cleaned.isEmpty ? nil : cleaned
    }

    /// `| failed-push | ios [TOKEN] | MESSAGE | Error Message: REASON` or `| succeeded-push | ios [TOKEN] MESSAGE`.
    func stringMode(_ s: String, time: String?, _ builder: EventBuilder, _ lineTime: Int64?) -> ParseOutcome {
        guard let kindRange = s.range(of: "failed-push") ?? s.range(of: "succeeded-push") else { return .ignore }
        let failed = s[kindRange] == "failed-push"
        let after = s[kindRange.upperBound...].drop { $0 == " " || $0 == "|" }
        let platform = after.prefix { $0 != " " && $0 != "[" && $0 != "|" }.lowercased()
        if let refusal = platformRefusal(platform) { return refusal }
        guard let open = after.firstIndex(of: "["), let close = after[open...].firstIndex(of: "]") else {
            return .reject(.unreadableShape("gorush entry without a [token]"))
        }
        // An answer with no time anywhere is still gorush's: a reject that says so, and the file
        // is read as gorush's rather than refused.
        if time == nil && lineTime == nil {
            return .reject(
                .incompleteRecord(format: "gorush answer", missing: "a time (printed without one, as gorush's command line does)"))
        }
        let token = String(after[after.index(after: open)..<close])
        var reason: String?
        if failed, let em = s.range(of: "Error Message:") {
            reason = s[em.upperBound...].trimmed()
        }
        return apply(GorushFormat.fields(token: token, failed: failed, error: reason, time: time), builder, lineTime)
    }

    /// nil for iOS; a skip for a platform gorush names (android, huawei); a reject otherwise, so a
    /// line whose platform was misread is never counted as another platform's.
    func platformRefusal(_ platform: String) -> ParseOutcome? {
        if platform == "ios" { return nil }
        if GorushFormat.otherPlatforms.contains(platform) { return .skip }
        return .reject(
            .unreadableShape(
                platform.isEmpty ? "gorush entry without a platform" : "gorush entry with an unknown platform '\(platform.prefix(40))'"))
    }

    /// A JSON entry, or an API response body holding several.
    func object(_ v: JSONValue, time: String?, _ builder: EventBuilder, _ lineTime: Int64?) -> Read {
        if case .array(let logs)? = v["logs"] {
            return .entries(logs.map { bundledRecord($0, time: time, lineTime: lineTime) })
        }
        guard let type = v["type"]?.string, GorushFormat.answers.contains(type) else { return .one(.ignore) }
        if let refusal = platformRefusal((v["platform"]?.string ?? "").lowercased()) { return .one(refusal) }
        let failed = type == "failed-push"
        return .one(
            apply(
                GorushFormat.fields(
                    token: v["token"]?.string ?? "", failed: failed, error: failed ? v["error"]?.string : nil,
                    time: v["time"]?.string ?? time), builder, lineTime))
    }

    /// One entry of an API response's `logs`: it carries no time, so the line's prefix must.
    func bundledRecord(_ e: JSONValue, time: String?, lineTime: Int64?) -> BundledRecord {
        guard let type = e["type"]?.string, GorushFormat.answers.contains(type) else { return .ignore }
        switch platformRefusal((e["platform"]?.string ?? "").lowercased()) {
        case .skip?: return .skip
        case .reject(let r)?: return .reject(r)
        default: break
        }
        let t = e["time"]?.string ?? time
        if t == nil && lineTime == nil {
            return .reject(
                .incompleteRecord(
                    format: "gorush API response entry", missing: "a time (the body has none: log it after a timestamp prefix)"))
        }
        let failed = type == "failed-push"
        return .record(
            kind: "send",
            fields: GorushFormat.fields(
                token: e["token"]?.string ?? "", failed: failed,
                error: failed ? e["error"]?.string : nil, time: t))
    }

    /// The entry types that are APNs answers.
    static let answers: Set<String> = ["succeeded-push", "failed-push"]

    /// gaurun's error texts (its copy of buford's `Error()` sentences), by their start, with the
    /// APNs reason each stands for.
    static let sentences: [(String, String)] = [
        ("bad device token", "BadDeviceToken"), ("device token is inactive", "Unregistered"),
        ("device token does not match", "DeviceTokenNotForTopic"), ("device token was not specified", "MissingDeviceToken"),
        ("too many requests", "TooManyRequests"), ("the message payload was empty", "PayloadEmpty"),
        ("the message payload was too large", "PayloadTooLarge"), ("the ID header value is bad", "BadMessageId"),
        ("the Expiration header value is bad", "BadExpirationDate"), ("the apns-priority value is bad", "BadPriority"),
        ("the Topic header was invalid", "BadTopic"), ("the certificate was bad", "BadCertificate"),
        ("certificate was for the wrong environment", "BadCertificateEnvironment"),
        ("there was an error with the certificate", "Forbidden"), ("the Topic header of the request", "MissingTopic"),
        ("the apns-push-type value is invalid", "InvalidPushType"), ("no provider certificate", "MissingProviderToken"),
        ("the provider token is not valid", "InvalidProviderToken"), ("the provider token is stale", "ExpiredProviderToken"),
        ("the provider token is being updated", "TooManyProviderTokenUpdates"), ("pushing to this topic", "TopicDisallowed"),
        ("one or more headers were repeated", "DuplicateHeaders"), ("the request contained a bad :path", "BadPath"),
        ("the specified :method", "MethodNotAllowed"), ("idle time out", "IdleTimeout"),
        ("the server is shutting down", "Shutdown"), ("an internal server error", "InternalServerError"),
        ("the service is unavailable", "ServiceUnavailable"),
    ]

    /// The fields of one push result: an APNs reason gives the status; any other error text is a
    /// transport failure (no status, the text in `error`).
    static func fields(token: String, failed: Bool, error: String?, time: String?) -> [(Field, String, ValueType)] {
        var f: [(Field, String, ValueType)] = []
        if let time { f.append((.time, time, .string)) }
        if !token.isEmpty { f.append((.token, token, .string)) }
        if failed {
            var r = (error ?? "").trimmed()
            if let s = sentences.first(where: { r.hasPrefix($0.0) }) { r = s.1 }
            if r.isEmpty || ReasonTaxonomy.isAPNsReason(r) {
                let reason = r.isEmpty ? "unknown" : r
                f.append((.reason, reason, .string))
                f.append((.status, String(ReasonTaxonomy.status(forReason: reason) ?? 0), .number))
            } else {
                f.append((.error, TransportError.cause(r), .string))
            }
        } else {
            f.append((.status, "200", .number))
        }
        return f
    }

    func apply(_ fields: [(Field, String, ValueType)], _ builder: EventBuilder, _ lineTime: Int64?) -> ParseOutcome {
        if let r = builder.build(kind: "send", fields: fields, lineTime: lineTime) { return .reject(r) }
        return .event
    }
}

/// The text of a failure that never reached APNs, without the request line Go's HTTP client puts
/// first (`Post "https://api.push.apple.com/3/device/TOKEN": `), which repeats the token and
/// would make every failed request a reason of its own.
enum TransportError {
    static func cause(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), text[..<scheme.lowerBound].count < 16 else { return text }
        guard let sep = text[scheme.upperBound...].range(of: ": ") else { return text }
        let cause = text[sep.upperBound...].trimmed()
        return cause.isEmpty ? text : cause
    }
}
