#!/usr/bin/env python3
"""Writes the fixtures of other tools' log shapes (gorush on a terminal, its API response, SNS
SMS records, syslog prefixes, rejects per occurrence, a file that is no log). The lines are our
own, written after each tool's documented shapes and format strings. Run from this folder."""

E = "\x1b"
T = lambda n: ("%04x" % n) * 16   # a 64-hex-digit token

lines = [
  "INFO[2026/11/02 - 08:00:00] Init App Version: 1.18.9",
  "INFO[2026/11/02 - 08:00:01] | succeeded-push | ios [%s] Hello" % T(1),
  "ERRO[2026/11/02 - 08:00:02] | failed-push | ios [%s] | Hello | Error Message: BadDeviceToken" % T(2),
  # the same output through a terminal: colours around the level, the kind and the platform
  "%s[31mERRO%s[0m[2026/11/02 - 08:00:03] | %s[97;41m failed-push %s[0m | %s[97;44m ios %s[0m [%s] | Hello | Error Message: Unregistered" % (E, E, E, E, E, E, T(3)),
  "%s[31mERRO%s[0m[2026/11/02 - 08:00:04] | %s[97;41m failed-push %s[0m | %s[97;42m android %s[0m [fcm-token-9] | Hello | Error Message: NotRegistered" % (E, E, E, E, E, E),
  'ERRO[2026/11/02 - 08:00:05] | failed-push | ios [%s] | Hello | Error Message: Post "https://api.push.apple.com/3/device/%s": remote error: tls: revoked certificate' % (T(4), T(4)),
  "ERRO[2026/11/02 - 08:00:06] | failed-push | ios [%s] | Hello | Error Message: dial tcp 17.188.143.34:443: i/o timeout" % T(5),
  "INFO[0042] | succeeded-push | ios [%s] Hello" % T(6),
  "ERRO[2026/11/02 - 08:00:08] | failed-push | [%s] | Hello | Error Message: BadDeviceToken" % T(7),
]
open("gorush-terminal.log", "w").write("\n".join(lines) + "\n")

api = [
  '{"level":"debug","msg":"Start push notification for iOS","time":"2026-11-02T08:09:00Z"}',
  '2026-11-02T08:10:00Z {"counts":2,"logs":[{"type":"failed-push","platform":"ios","token":"%s","message":"Hi","error":"Unregistered"},{"type":"failed-push","platform":"android","token":"fcm-1","message":"Hi","error":"NotRegistered"}],"success":"ok"}' % T(8),
  '{"counts":1,"logs":[{"type":"failed-push","platform":"ios","token":"%s","message":"Hi","error":"BadDeviceToken"}],"success":"ok"}' % T(9),
]
open("gorush-api.log", "w").write("\n".join(api) + "\n")

sms = [
  '{"notification":{"messageId":"6c1f","timestamp":"2026-11-02 08:20:00.000"},"delivery":{"phoneCarrier":"Example Mobile","mnc":260,"destination":"+15555550123","priceInUSD":0.00645,"smsType":"Transactional","mcc":310,"providerResponse":"Message has been accepted by phone carrier","dwellTimeMs":456},"status":"SUCCESS"}',
  '{"notification":{"messageId":"7c1f","timestamp":"2026-11-02 08:21:00.000"},"delivery":{"destination":"arn:aws:sns:us-east-1:111122223333:endpoint/APNS/ShopApp/8f7c","providerResponse":"{\\"reason\\":\\"Unregistered\\"}","dwellTimeMs":38,"attempts":1,"token":"%s","statusCode":410},"status":"FAILURE"}' % T(10),
  '{"notification":{"messageId":"8c1f","timestamp":"2026-11-02 08:22:00.000"},"delivery":{"providerResponse":"","dwellTimeMs":38},"status":"FAILURE"}',
]
open("sns-sms.ndjson", "w").write("\n".join(sms) + "\n")

occ = [
  '{"time":"2026-11-02T08:00:00Z","event":"send","token":"%s","status":200}' % T(11),
  'junk that is not a record',
  '{"time":"2026-11-02T08:01:00Z","event":"send","token":"%s","status":200}' % T(11),
  'junk that is not a record',
  'junk that is not a record',
]
open("rejects-per-occurrence.ndjson", "w").write("\n".join(occ) + "\n")

pretty = """{
  "time": "2026-11-02T08:00:00Z",
  "event": "send",
  "token": "%s",
  "status": 200
}
{
  "time": "2026-11-02T08:01:00Z",
  "event": "send"
}
{
  "time": "2026-11-02T08:02:00Z",
  "event": "bogus"
}
""" % T(12)
open("pretty-rejects.json", "w").write(pretty)

syslog = [
  'Nov  2 08:30:00 push-1 pusher[812]: {"event":"send","token":"%s","status":200}' % T(13),
  'Nov  2 08:30:01 push-1 pusher[812]: {"time":"2026-11-02T08:29:59Z","event":"send","token":"%s","status":410,"reason":"Unregistered"}' % T(13),
  'Dec 31 23:59:59 push-1 pusher[812]: {"event":"send","token":"%s","status":200}' % T(14),
]
open("syslog-ndjson.log", "w").write("\n".join(syslog) + "\n")

sysgorush = [
  'Nov  2 08:40:00 push-1 gorush[77]: time="2026/11/02 - 08:40:00" level=error msg="| failed-push | ios [%s] | Hi | Error Message: ExpiredToken"' % T(15),
  'Nov  2 08:40:01 push-1 gorush[77]: time="2026/11/02 - 08:40:01" level=info msg="| succeeded-push | ios [%s] Hi"' % T(15),
]
open("syslog-gorush.log", "w").write("\n".join(sysgorush) + "\n")

open("not-a-log.md", "w").write("# Push logs\n\nThis folder holds the pusher's logs, one file a day.\nRotate with logrotate, keep 30 days.\n")

# node-apn's whole result object (JSON.stringify(result)), one line after a CloudWatch time, and
# pretty-printed with a "time" key the app added; one without any time.
nodeapn = [
  '2026-11-02T09:00:00.000Z {"sent":[{"device":"%s"}],"failed":[{"device":"%s","status":"410","response":{"reason":"Unregistered","timestamp":1793610000000}},{"device":"%s","error":{}}]}' % (T(50), T(51), T(52)),
  '{"sent":[{"device":"%s"}],"failed":[]}' % T(53),
]
open("node-apn-results.log", "w").write("\n".join(nodeapn) + "\n")
open("node-apn-result.json", "w").write("""{
  "time": "2026-11-02T09:05:00Z",
  "sent": [
    { "device": "%s" }
  ],
  "failed": [
    {
      "device": "%s",
      "status": "400",
      "response": { "reason": "BadDeviceToken" }
    }
  ]
}
""" % (T(54), T(55)))

# Expo tickets and receipts (HTTP response bodies), each after a docker-style time prefix.
expo = [
  '2026-11-02T10:00:00Z {"data":[{"status":"ok","id":"aaaa-0001"},{"status":"error","message":"\\"ExponentPushToken[xxxxxxxxxxxxxxxxxxxx01]\\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered"}}]}',
  '2026-11-02T10:00:01Z {"to":"ExponentPushToken[xxxxxxxxxxxxxxxxxxxx02]","data":[{"status":"ok","id":"aaaa-0002"}]}',
  '2026-11-02T10:30:00Z {"data":{"aaaa-0001":{"status":"ok"},"aaaa-0002":{"status":"error","message":"The device cannot receive push notifications anymore","details":{"error":"DeviceNotRegistered"}},"aaaa-0003":{"status":"error","message":"Rate exceeded","details":{"error":"MessageRateExceeded"}}}}',
]
open("expo.log", "w").write("\n".join(expo) + "\n")

# Braze Currents push events: flat storage records with Avro-wrapped values, and an HTTP-style
# batch with user/properties objects.
braze = [
  '{"event_type":"users.behaviors.pushnotification.TokenStateChange","id":"e1","user_id":"b-1","external_user_id":{"string":"user-7"},"time":1793613600,"app_id":"app-1","device_id":{"string":"dev-7"},"platform":{"string":"ios"},"push_token":{"string":"%s"},"push_token_state_change_type":{"string":"add"}}' % T(60),
  '{"event_type":"users.messages.pushnotification.Send","id":"e2","user_id":"b-1","external_user_id":"user-7","time":1793613700,"app_id":"app-1","device_id":"dev-7","platform":"ios","dispatch_id":"d-1","push_token":"%s"}' % T(60),
  '{"event_type":"users.messages.pushnotification.Bounce","id":"e3","user_id":"b-1","external_user_id":"user-7","time":1793613800,"app_id":"app-1","device_id":"dev-7","platform":"ios","push_token":"%s"}' % T(60),
  '{"event_type":"users.behaviors.pushnotification.TokenStateChange","id":"e4","user_id":"b-1","external_user_id":"user-7","time":1793613900,"device_id":"dev-7","platform":"ios","push_token":"%s","push_token_state_change_type":"remove"}' % T(60),
  '{"events":[{"event_type":"users.messages.pushnotification.Bounce","id":"e5","time":1793614000,"user":{"user_id":"b-2","external_user_id":"user-8","device_id":"dev-8"},"properties":{"app_id":"app-1","platform":"android","push_token":"fcm-8"}},{"event_type":"users.messages.pushnotification.Send","id":"e6","time":1793614100,"user":{"user_id":"b-3","device_id":"dev-9"},"properties":{"platform":"ios"}}]}',
]
open("braze-currents.ndjson", "w").write("\n".join(braze) + "\n")

# Pinpoint / End User Messaging push results.
pinpoint = [
  '{"event_type":"_push.send","event_timestamp":1793617200000,"attributes":{"channelType":"APNS","address":"%s","deliveryStatus":"SUCCESSFUL","messageId":"m-1"}}' % T(70),
  '{"event_type":"_push.send","event_timestamp":1793617260000,"attributes":{"channelType":"APNS_SANDBOX","address":"%s","deliveryStatus":"PERMANENT_FAILURE","statusCode":"400","pushProviderResponse":"{\\"reason\\":\\"BadDeviceToken\\"}","messageId":"m-2"}}' % T(71),
  '{"event_type":"_push.send","event_timestamp":1793617320000,"attributes":{"channelType":"APNS","address":"%s","deliveryStatus":"PERMANENT_FAILURE","pushProviderResponse":"Unregistered","messageId":"m-3"}}' % T(72),
  '{"event_type":"_push.send","event_timestamp":1793617380000,"attributes":{"channelType":"GCM","address":"fcm-70","deliveryStatus":"SUCCESSFUL"}}',
  '{"event_type":"_push.send","event_timestamp":1793617440000,"attributes":{"channelType":"APNS","address":"%s","deliveryStatus":"TEMPORARY_FAILURE"}}' % T(73),
]
open("pinpoint.ndjson", "w").write("\n".join(pinpoint) + "\n")

# Lines of the built-in line-format definitions, among other lines of the same application logs.
open("pushy.log", "w").write("\n".join([
  "2026-11-02 08:00:00.001 [main] INFO  c.e.push.Sender - starting the APNs client",
  "2026-11-02 08:00:00.123 [nioEventLoopGroup-2-1] INFO  c.e.push.Sender - Push notification accepted by APNs gateway for token %s" % T(80),
  "2026-11-02 08:00:01.456 [nioEventLoopGroup-2-1] ERROR c.e.push.Sender - Notification for token %s rejected by the APNs gateway: BadDeviceToken" % T(81),
  "2026-11-02 08:00:02.789 [nioEventLoopGroup-2-1] ERROR c.e.push.Sender - Notification rejected by the APNs gateway: TooManyProviderTokenUpdates",
]) + "\n")
open("parse-server.log", "w").write("\n".join([
  "2026-11-02T08:10:00.000Z - info: sending push to 2 installations",
  "2026-11-02T08:10:00.100Z - verbose: APNS transmitted to %s" % T(82),
  "2026-11-02T08:10:00.200Z - error: APNS error transmitting to device %s with status 410 and reason Unregistered" % T(83),
]) + "\n")
open("aioapns.log", "w").write("\n".join([
  "2026-11-02 08:20:00,000 INFO sygnal Starting sygnal",
  "2026-11-02 08:20:00,250 WARNING aioapns.client Status of notification 1b6f5d2e-0c1f-5e2b-9e7a-1e2f3a4b5c6d is 400 (DeviceTokenNotForTopic)",
  "2026-11-02 08:20:01,000 INFO aioapns.client Status of notification 2b6f5d2e-0c1f-5e2b-9e7a-1e2f3a4b5c6d is 200",
]) + "\n")
open("rpush.log", "w").write("\n".join([
  "[2026-11-02 08:30:00] [myapp] Connecting to api.push.apple.com",
  "[2026-11-02 08:30:01] [myapp] 1042 sent to %s" % T(84),
  "[2026-11-02 08:30:05] [ERROR] [myapp] 1043 failed: 410, Unregistered",
]) + "\n")
