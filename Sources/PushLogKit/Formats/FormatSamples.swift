/// One line of each format written in Swift, for `pushlog formats` (the line-format definitions
/// carry their own samples).
public enum FormatSamples {
    public static let builtIn: [(name: String, description: String, sample: String)] = [
        (
            "ndjson",
            "pushlog's event schema, one JSON object a line (also after a CloudWatch, docker or syslog prefix); node-apn results, Expo, Braze Currents and Pinpoint records",
            #"{"time":"2026-11-02T08:01:00Z","event":"send","token":"3f2a000000000000000000000000000000000000000000000000000000000001","status":200}"#
        ),
        (
            "json-document", "one JSON array of records, or pretty-printed objects one after another",
            #"[{"time":"2026-11-02T08:01:00Z","event":"send","token":"3f2a000000000000000000000000000000000000000000000000000000000001","status":200}]"#
        ),
        (
            "logfmt", "key=value lines with the same keys",
            #"time=2026-11-02T08:10:00Z event=send token=3f2a000000000000000000000000000000000000000000000000000000000001 status=410 reason="Unregistered""#
        ),
        (
            "csv", "a header row naming the same keys, RFC 4180 quoting",
            "time,event,token,status,reason"
        ),
        (
            "sns", "AWS SNS delivery-status records (CloudWatch Logs)",
            #"{"notification":{"timestamp":"2026-11-02 08:00:00.123"},"delivery":{"destination":"arn:aws:sns:us-east-1:123456789012:endpoint/APNS/ShopApp/5e1c7a2b-6f1d-3b0e-9c4a-2d8f7e6a1b3c","token":"3f2a000000000000000000000000000000000000000000000000000000000001","statusCode":200},"status":"SUCCESS"}"#
        ),
        (
            "gorush", "gorush logs: string or JSON mode, logrus text/JSON or terminal, API response bodies",
            "ERRO[2026/11/02 - 08:00:02] | failed-push | ios [3f2a000000000000000000000000000000000000000000000000000000000001] | Hello | Error Message: BadDeviceToken"
        ),
        (
            "node-apn-console", "node-apn results as console.log prints them (single quotes, unquoted keys, over several lines)",
            "2026-11-02T09:00:00.000Z { sent: [], failed: [ { device: '3f2a000000000000000000000000000000000000000000000000000000000001', status: '410', response: [Object] } ] }"
        ),
        (
            "apple-metrics", "Apple Push Notifications Console delivery-metrics CSV",
            "Push Type,Status,Date (UTC),Count"
        ),
    ]
}
