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
