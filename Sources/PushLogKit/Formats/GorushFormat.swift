import Foundation

/// gorush logs: string mode (`| failed-push | ios [TOKEN] | MESSAGE | Error Message: REASON`)
/// and JSON mode (`{"type":"failed-push","platform":"ios","token",...,"error"}`), bare or inside a
/// logrus JSON (`{"level","msg","time"}`) or text (`time="..." level=... msg="..."`) wrapper.
/// Status comes from the reason (SPEC §3.4); non-iOS entries are skipped, other lines ignored.
public final class GorushFormat: LineFormat {
    public let name = "gorush"
    let builder: EventBuilder
    public init(builder: EventBuilder) { self.builder = builder }

    public func parse(_ line: ByteSlice, number: Int) -> ParseOutcome {
        var msg: String
        var time: String?
        let text = String(decoding: line, as: UTF8.self)
        if line.first == 0x7B, let v = JSONValue.parse(line) {
            if v["msg"] != nil {
                msg = v["msg"]?.string ?? ""
                time = v["time"]?.string
            } else {
                return entry(v, time: nil)
            }
        } else if text.hasPrefix("time="), let pairs = LogfmtFormat.pairs(line) {
            msg = pairs.first { $0.0 == "msg" }?.1 ?? ""
            time = pairs.first { $0.0 == "time" }?.1
        } else {
            msg = text
            // "[GORUSH] 2019/12/21 - 02:40:12 | ..." style prefixes carry the time.
            if let bar = text.range(of: "|") { time = GorushFormat.prefixTime(String(text[..<bar.lowerBound])) }
        }
        let trimmed = msg.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("{"), let v = JSONValue.parse(trimmed) { return entry(v, time: time) }
        return stringMode(trimmed, time: time)
    }

    static func prefixTime(_ s: String) -> String? {
        let cleaned = s.replacingOccurrences(of: "[GORUSH]", with: "").trimmingCharacters(in: .whitespaces)
        return cleaned.isEmpty ? nil : cleaned
    }

    /// `| failed-push | ios [TOKEN] | MESSAGE | Error Message: REASON` or `| succeeded-push | ios [TOKEN] MESSAGE`.
    func stringMode(_ s: String, time: String?) -> ParseOutcome {
        guard let kindRange = s.range(of: "failed-push") ?? s.range(of: "succeeded-push") else { return .ignore }
        let failed = s[kindRange] == "failed-push"
        let after = s[kindRange.upperBound...].drop { $0 == " " || $0 == "|" }
        let platform = after.prefix { $0 != " " && $0 != "[" }.lowercased()
        guard platform == "ios" else { return .skip }
        guard let open = after.firstIndex(of: "["), let close = after[open...].firstIndex(of: "]") else {
            return .reject("gorush entry without a [token]")
        }
        let token = String(after[after.index(after: open)..<close])
        var reason: String?
        if failed, let em = s.range(of: "Error Message:") {
            reason = s[em.upperBound...].trimmingCharacters(in: .whitespaces)
        }
        return build(token: token, failed: failed, reason: reason, time: time)
    }

    func entry(_ v: JSONValue, time: String?) -> ParseOutcome {
        guard let type = v["type"]?.string, type.hasSuffix("-push") else { return .ignore }
        guard (v["platform"]?.string ?? "").lowercased() == "ios" else { return .skip }
        let failed = type == "failed-push"
        return build(token: v["token"]?.string ?? "", failed: failed, reason: failed ? v["error"]?.string : nil,
                     time: v["time"]?.string ?? time)
    }

    func build(token: String, failed: Bool, reason: String?, time: String?) -> ParseOutcome {
        builder.reset()
        builder.setKind("send")
        if let time { builder.assign(.time, string: time) }
        if !token.isEmpty { builder.assign(.token, string: token) }
        if failed {
            let r = (reason ?? "").isEmpty ? "unknown" : reason!
            builder.assign(.reason, string: r)
            let status = ReasonTaxonomy.status(forReason: r) ?? 0
            builder.assign(.status, string: String(status), .number)
        } else {
            builder.assign(.status, string: "200", .number)
        }
        if let r = builder.finish() { return .reject(r) }
        return .event
    }
}
