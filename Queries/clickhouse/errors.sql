-- title: APNs errors
-- description: Every non-accepted response by time bucket, status and reason, with the APNs
-- description: category, and retries of responses that must never be retried.
-- description: ClickHouse version of Queries/errors.sql (same sections, columns and labels).
-- param: since  start of the range, {since:DateTime64(3)}; 1900-01-01 = open
-- param: until  end of the range, exclusive, {until:DateTime64(3)}; 2299-12-31 = open
-- param: by=hour  bucket: minute, 5m, hour or day, {by:String}
-- param: topic  only responses for this topic, {topic:String}; '' = all
-- param: env  only responses sent to this env, {env:String}; '' = all

-- section: summary
-- retried_non_retryable: retries of a response that must never be retried (category token-gone,
-- token-bad or request): later responses to the same token and topic (a missing topic matches a
-- missing topic) within one hour of the error (at most 3,600,000 ms later), with the same
-- apns-id, an attempt above 1 or the same collapse-id, and no registration of the token after
-- the error and at or before the retry. A retry that follows several such errors counts once,
-- on the row of the latest of them (pushlog breaks a tie of two errors in the same millisecond
-- by storage order; here by source path and line, the order pushlog reads them in).
-- Transport failures (category transport: no APNs response at all, e.g. TLS, DNS, timeouts) are
-- rows too: no status, their error text as the reason; they are never retried_non_retryable.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
e AS (
  SELECT time_ms, line_hash, source, line, token, topic, apns_id, collapse_id, status, toNullable(toString(reason)) AS reason, category
  FROM pushlog.kept_responses
  WHERE status <> 200 AND time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
  UNION ALL
  SELECT time_ms, line_hash, source, line, token, topic, apns_id, collapse_id, status, error, category
  FROM pushlog.kept_sends
  WHERE category = 'transport' AND time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), never AS (
  -- Every never-retry error of any time (the later errors that take a retry over).
  SELECT token, time_ms, source, line, topic, apns_id, collapse_id,
         arrayJoin([intDiv(time_ms, 3600000), intDiv(time_ms, 3600000) - 1]) AS h FROM pushlog.kept_responses
  WHERE status <> 200 AND category IN ('token-gone', 'token-bad', 'request') AND token <> ''
), pairs AS (
  SELECT x.time_ms AS et, x.h AS eh, x.line_hash AS ek, x.source AS esrc, x.line AS eline, x.token AS token, x.topic AS topic,
         r.time_ms AS rt, r.line_hash AS rk, r.apns_id AS r_apns, r.attempt AS r_attempt, r.collapse_id AS r_collapse
  FROM (SELECT *, intDiv(time_ms, 3600000) AS h FROM e WHERE category IN ('token-gone', 'token-bad', 'request') AND token <> '') AS x
  -- A retry is within the hour after the error: in the error's clock hour or the next, so each
  -- response is joined under both its own hour and the one before (one pair each), which keeps a
  -- token with many errors and sends from pairing all of them.
  INNER JOIN (SELECT *, arrayJoin([intDiv(time_ms, 3600000), intDiv(time_ms, 3600000) - 1]) AS h FROM pushlog.kept_responses
              WHERE token IN (SELECT token FROM never)) AS r ON r.token = x.token AND r.h = x.h
  WHERE r.time_ms > x.time_ms AND r.time_ms <= x.time_ms + 3600000 AND isNotDistinctFrom(r.topic, x.topic)
    AND (r.apns_id = x.apns_id OR r.attempt > 1 OR r.collapse_id = x.collapse_id)
), regs AS (
  SELECT token, groupArray(time_ms) AS times FROM pushlog.kept_registers WHERE token IN (SELECT token FROM never) GROUP BY token
), flagged AS (
  -- Each pair, and whether its retry is taken over by a later never-retry error of the same token
  -- and topic (pairs is read once: ClickHouse evaluates a CTE again at each reference).
  SELECT p.et AS et, p.ek AS ek, p.rt AS rt, any(p.token) AS token,
         max(coalesce(n.time_ms >= p.et AND n.time_ms < p.rt AND (n.time_ms > p.et OR (n.source, n.line) > (p.esrc, p.eline))
                      AND isNotDistinctFrom(n.topic, p.topic)
                      AND (p.r_apns = n.apns_id OR p.r_attempt > 1 OR p.r_collapse = n.collapse_id), 0)) AS taken
  FROM pairs AS p LEFT JOIN never AS n ON n.token = p.token AND n.h = p.eh
  GROUP BY p.et, p.ek, p.rt, p.rk
), retries AS (
  SELECT f.et AS et, f.ek AS ek, count() AS n
  FROM flagged AS f LEFT JOIN regs AS g ON g.token = f.token
  WHERE f.taken = 0 AND NOT arrayExists(t -> t > f.et AND t <= f.rt, g.times)
  GROUP BY f.et, f.ek
)
SELECT e.status AS status, coalesce(e.reason, '') AS reason, coalesce(e.category, 'unknown') AS category,
       count() AS responses, uniqExactIf(e.token, e.token <> '') AS tokens,
       pushlog_rfc3339(min(e.time_ms)) AS first_seen, pushlog_rfc3339(max(e.time_ms)) AS last_seen,
       sum(coalesce(r.n, 0)) AS retried_non_retryable
FROM e LEFT JOIN retries AS r ON r.et = e.time_ms AND r.ek = e.line_hash
GROUP BY e.status, e.reason, e.category
ORDER BY responses DESC
SETTINGS join_use_nulls = 1;

-- section: by_bucket
-- responses sums, per status and reason, to the summary's responses. bucket_responses: every
-- response in the bucket, accepted ones too; share: responses / bucket_responses. A bucket with
-- no error is one row with empty status/reason, 0 responses and its bucket_responses; a bucket
-- with no response at all has bucket_responses 0. Transport failures are rows with no status and
-- their error text as the reason.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
r AS (
  SELECT pushlog_bucket_start(time_ms, {by:String}) AS b, status, coalesce(why, '') AS reason,
         coalesce(cat, 'unknown') AS category, count() AS responses
  FROM (
    SELECT time_ms, status, toNullable(toString(reason)) AS why, toNullable(toString(category)) AS cat FROM pushlog.kept_responses
    WHERE status <> 200 AND time_ms >= since AND time_ms < until
      AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
    UNION ALL
    SELECT time_ms, status, coalesce(toString(reason), error), toNullable(toString(category)) FROM pushlog.kept_sends
    WHERE category = 'transport' AND time_ms >= since AND time_ms < until
      AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String}))
  GROUP BY b, status, why, cat
), totals AS (
  SELECT pushlog_bucket_start(time_ms, {by:String}) AS b, count() AS bucket_responses FROM pushlog.kept_responses
  WHERE time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
  GROUP BY b
), fill AS (
  SELECT arrayJoin(if(n = 0 OR intDiv(f1 - pushlog_bucket_start(f0, {by:String}), pushlog_bucket_step({by:String})) >= 20000, [],
                      range(pushlog_bucket_start(f0, {by:String}), f1, pushlog_bucket_step({by:String})))) AS b
  FROM (SELECT n, if(since = -9000000000000000000, lo, since) AS f0,
               if(until = 9000000000000000000, if(since = -9000000000000000000, hi + 1, greatest(toUnixTimestamp64Milli(now64(3)), hi + 1)), until) AS f1
        FROM pushlog.kept_data_span)
)
SELECT bucket, status, reason, category, responses, bucket_responses,
       if(bucket_responses = 0, NULL, round(responses / bucket_responses, 6)) AS share
FROM (
  SELECT r.b AS b, pushlog_bucket(r.b, {by:String}) AS bucket, r.status AS status, r.reason AS reason, r.category AS category,
         r.responses AS responses, toUInt64(coalesce(t.bucket_responses, 0)) AS bucket_responses
  FROM r LEFT JOIN totals AS t ON t.b = r.b
  UNION ALL
  SELECT b, pushlog_bucket(b, {by:String}), NULL, NULL, NULL, 0, toUInt64(bucket_responses) FROM totals WHERE b NOT IN (SELECT b FROM r)
  UNION ALL
  SELECT b, pushlog_bucket(b, {by:String}), NULL, NULL, NULL, 0, toUInt64(0) FROM fill WHERE b NOT IN (SELECT b FROM r) AND b NOT IN (SELECT b FROM totals)
)
ORDER BY b, responses DESC;
