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
-- retried_non_retryable: responses that came after a token-gone, token-bad or request error
-- for the same apns_id (counted on the row of that first error).
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
later AS (
  SELECT apns_id, groupArray(time_ms) AS times FROM pushlog.responses WHERE apns_id IS NOT NULL GROUP BY apns_id
)
SELECT s.status AS status, coalesce(s.reason, '') AS reason, coalesce(s.category, 'unknown') AS category,
       count() AS responses, uniqExactIf(s.token, s.token <> '') AS tokens,
       pushlog_rfc3339(min(s.time_ms)) AS first_seen, pushlog_rfc3339(max(s.time_ms)) AS last_seen,
       sum(if(s.category IN ('token-gone', 'token-bad', 'request') AND s.apns_id IS NOT NULL,
              arrayCount(x -> x > s.time_ms, l.times), 0)) AS retried_non_retryable
FROM pushlog.responses AS s LEFT JOIN later AS l ON l.apns_id = s.apns_id
WHERE s.status <> 200 AND s.time_ms >= since AND s.time_ms < until
  AND ({topic:String} = '' OR s.topic = {topic:String}) AND ({env:String} = '' OR s.env = {env:String})
GROUP BY s.status, s.reason, s.category
ORDER BY responses DESC;

-- section: by_bucket
-- responses sums, per status and reason, to the summary's responses. Buckets inside the range with
-- no error are shown as one row with empty status/reason and 0 responses.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
r AS (
  SELECT pushlog_bucket_start(time_ms, {by:String}) AS b, status, coalesce(reason, '') AS reason,
         coalesce(category, 'unknown') AS category, count() AS responses
  FROM pushlog.responses
  WHERE status <> 200 AND time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
  GROUP BY b, status, pushlog.responses.reason, pushlog.responses.category
), fill AS (
  SELECT arrayJoin(if(n = 0 OR intDiv(f1 - pushlog_bucket_start(f0, {by:String}), pushlog_bucket_step({by:String})) >= 20000, [],
                      range(pushlog_bucket_start(f0, {by:String}), f1, pushlog_bucket_step({by:String})))) AS b
  FROM (SELECT n, if(since = -9000000000000000000, lo, since) AS f0,
               if(until = 9000000000000000000, if(since = -9000000000000000000, hi + 1, greatest(toUnixTimestamp64Milli(now64(3)), hi + 1)), until) AS f1
        FROM pushlog.data_span)
)
SELECT bucket, status, reason, category, responses FROM (
  SELECT b, pushlog_bucket(b, {by:String}) AS bucket, status, reason, category, responses FROM r
  UNION ALL
  SELECT b, pushlog_bucket(b, {by:String}), NULL, NULL, NULL, 0 FROM fill WHERE b NOT IN (SELECT b FROM r)
)
ORDER BY b, responses DESC;
