#!/usr/bin/env python3
"""Writes the small hand-checkable fixtures in this folder. Run from this folder."""
import gzip, io

T1 = "aaaa1111bbbb2222cccc3333dddd4444eeee5555ffff6666aaaa7777bbbb8888"
T2 = "BBBB1111bbbb2222cccc3333dddd4444eeee5555ffff6666aaaa7777bbbb9999"

canonical = [
    '{"time":"2026-11-02T08:00:00Z","event":"register","token":"%s","device":"dev-1","user":"user-1","env":"production","app_version":"5.1.0","os_version":"18.1","auth":"authorized","topic":"com.example.app"}' % T1,
    '{"time":"2026-11-02T08:01:00Z","event":"send","token":"%s","status":200,"apns_id":"00000000-0000-4000-8000-000000000001","env":"production","topic":"com.example.app","push_type":"alert","priority":10,"payload":{"aps":{"alert":{"title":"Sale","body":"secret alert text"},"sound":"default","badge":3},"deal":7}}' % T1,
    '{"time":"2026-11-02T08:02:00Z","event":"request","token":"%s","apns_id":"00000000-0000-4000-8000-000000000002","env":"production","push_type":"background","priority":5,"payload":{"aps":{"content-available":1}}}' % T1,
    '{"time":"2026-11-02T08:02:00.250Z","event":"response","apns_id":"00000000-0000-4000-8000-000000000002","status":200,"latency_ms":41.5}',
    '{"time":"2026-11-02T08:03:00Z","event":"settings","device":"dev-1","user":"user-1","auth":"denied","alert_setting":"disabled"}',
    '{"time":"2026-11-02T08:02:01Z","event":"receipt","apns_id":"00000000-0000-4000-8000-000000000002","device":"dev-1","receipt":"background","result":"newData"}',
    '{"time":"2026-11-02T08:04:00Z","event":"unregister","token":"%s","device":"dev-1","user":"user-1"}' % T1,
]
open("canonical.ndjson", "w").write("\n".join(canonical) + "\n")

# Every alias of the event schema, one record each; all are sends of token T2 (upper case: folded).
aliases = [
    '{"ts":"2026-11-02T09:00:00Z","event":"send","device_token":"%s","apns-id":"a1","StatusCode":200,"apns-push-type":"alert","apns-priority":10,"apns-topic":"com.example.app","apns-collapse-id":"c1","apns-expiration":0,"apns-unique-id":"u1","host":"api.sandbox.push.apple.com:443"}' % T2,
    '{"@timestamp":"2026-11-02T09:01:00Z","event":"send","deviceToken":"%s","apnsId":"a2",":status":410,"Reason":"Unregistered","response":{"timestamp":1762074000000}}' % T2,
    '{"timestamp":"2026-11-02T09:02:00Z","event":"send","token":"%s","ApnsID":"a3","status_code":400,"body":"{\\"reason\\":\\"BadDeviceToken\\"}","host":"api.push.apple.com"}' % T2,
    '{"time":"2026-11-02T09:03:00Z","event":"send","token":"%s","apns_id":"a4","status":410,"reason":"ExpiredToken","timestamp":1762074100000}' % T2,
]
open("aliases.ndjson", "w").write("\n".join(aliases) + "\n")

# Every time form; each line is a register of its own token so all are distinct.
times = [
    ("2026-11-02T14:00:00Z", 1793628000000),
    ("2026-11-02 14:00:00Z", 1793628000000),
    ("2026-11-02T14:00:00", 1793628000000),           # naive = UTC
    ("2026-11-02T15:30:00+01:30", 1793628000000),
    ("2026-11-02T09:00:00-0500", 1793628000000),
    ("2026-11-02T14:00:00.1235Z", 1793628000124),      # rounded, not truncated
    ("2026-11-02 14:00", 1793628000000),
    (1793628000, 1793628000000),                       # epoch seconds
    (1793628000.5, 1793628000500),                     # fractional seconds
    (1793628000123, 1793628000123),                    # milliseconds
    (1793628000123456, 1793628000123),                 # microseconds, rounded down
    (1793628000123500, 1793628000124),                 # microseconds, rounded up
    ("1793628000", 1793628000000),                     # epoch as a string
]
with open("times.ndjson", "w") as f, open("times.expected", "w") as e:
    for i, (v, ms) in enumerate(times):
        tv = '"%s"' % v if isinstance(v, str) else repr(v)
        f.write('{"time":%s,"event":"register","token":"%064x","device":"t%d"}\n' % (tv, i + 1, i))
        e.write("%d\n" % ms)

lines = ['{"time":"2026-11-02T10:%02d:00Z","event":"send","token":"%s","status":200,"apns_id":"m%d"}' % (i, T1, i) for i in range(6)]
part1 = gzip.compress(("\n".join(lines[:3]) + "\n").encode(), mtime=0)
part2 = gzip.compress(("\n".join(lines[3:]) + "\n").encode(), mtime=0)
open("multi-member.ndjson.gz", "wb").write(part1 + part2)

many = ['{"time":"2026-11-02T11:%02d:%02d Z","event":"send","token":"%s","status":200,"apns_id":"x%d"}' % (i // 60, i % 60, T1, i) for i in range(300)]
many = [l.replace(" Z", "Z") for l in many]
full = gzip.compress(("\n".join(many) + "\n").encode(), mtime=0, compresslevel=1)
open("truncated.ndjson.gz", "wb").write(full[: len(full) * 2 // 3])

open("crlf.ndjson", "wb").write(("\r\n".join(lines[:2]) + "\r\n").encode())

bad = [
    lines[0].encode(),
    b'{"time":"2026-11-02T10:00:00Z","event":"send","token":"\xff\xfe","status":200}',
    b'',
    b'   ',
    b'{"time":"2026-11-02T10:00:00Z","event":"send","status":200,"authorization":"Bearer eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJBQkMifQ.c2ln"}',
    b'{"time":"not a time","event":"send","token":"ab","status":200}',
    b'{"time":"2026-11-02T10:00:00Z","event":"teleport","token":"ab"}',
    b'{"time":"2026-11-02T10:00:00Z","event":"send","token":"ab","status":"two hundred"}',
    b'{"time":"2026-11-02T10:00:00Z","event":"send","token":"ab","status":200',
    lines[1].encode(),
]
open("bad-lines.ndjson", "wb").write(b"\n".join(bad) + b"\n")
