-- title: APNs errors
-- description: Every non-accepted response by time bucket, status and reason, with the APNs
-- description: category, and retries of responses that must never be retried.
-- description: ClickHouse version of Queries/errors.sql (same sections, columns and labels).
-- param: since  start of the range, {since:DateTime64(3)}; 1900-01-01 = open
-- param: until  end of the range, exclusive, {until:DateTime64(3)}; 2299-12-31 = open
-- param: by enum(minute,5m,hour,day,topic,env,app_version,push_type,reason) = hour  {by:String}
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
  -- From kept_errors (facts.sql): the error responses, then the transport failures.
  SELECT time_ms, line_hash, token, status, toNullable(toString(reason)) AS reason, category
  FROM pushlog.kept_errors
  WHERE response = 1 AND time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
  UNION ALL
  SELECT time_ms, line_hash, token, status, error, category
  FROM pushlog.kept_errors
  WHERE transport = 1 AND time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), retries AS (
  -- Retries per never-retry error, kept over all history (facts.sql: kept_retries); the join
  -- below keeps those of the errors in e (a filter here would compute e a second time).
  SELECT et, ek, n FROM pushlog.kept_retries
  WHERE et >= since AND et < until
)
SELECT e.status AS status, coalesce(e.reason, '') AS reason, coalesce(e.category, 'unknown') AS category,
       count() AS responses, uniqExactIf(e.token, e.token <> '') AS tokens,
       pushlog_rfc3339(min(e.time_ms)) AS first_seen, pushlog_rfc3339(max(e.time_ms)) AS last_seen,
       sum(coalesce(r.n, 0)) AS retried_non_retryable
FROM e LEFT JOIN retries AS r ON r.et = e.time_ms AND r.ek = e.line_hash
GROUP BY e.status, e.reason, e.category
ORDER BY responses DESC, status NULLS FIRST, reason, category
SETTINGS join_use_nulls = 1;

-- section: by_bucket
-- responses sums, per status and reason, to the summary's responses. bucket_responses: every
-- response in the bucket, accepted ones too; share: responses / bucket_responses. A bucket with
-- no error is one row with empty status/reason, 0 responses and its bucket_responses; a bucket
-- with no response at all has bucket_responses 0. Transport failures are rows with no status and
-- their error text as the reason; so is an error response without a reason. With --by
-- topic|env|app_version|push_type|reason, bucket is that value instead of a time (app_version: of
-- the token's latest registration; reason: of an error, its reason or error text), no empty rows.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
pushlog_hours_from(since, {by:String}) AS lo_h, pushlog_hours_to(since, until, {by:String}) AS hi_h,
g AS (
  -- One scan: every response (err 0 accepted, 1 an error) and transport failure (err 2) by bucket,
  -- status and reason, and the buckets to fill (err -1); the rows are picked from it once below.
  -- --by reason: a response counts in bucket_responses under its reason, an error row is shown
  -- under its reason or error text; an error without a reason but with an error text is both an
  -- error row of the one (err 2: not counted again) and a response of '(none)' (err 0).
  SELECT b, role.2 AS d, status, why, cat, role.1 AS err, sum(cnt) AS n
  FROM (
    SELECT pushlog_by_start(time_ms, {by:String}) AS b, status, why, cat,
           pushlog_by_value({by:String}, topic, env, push_type, reason, app_version) AS d_response,
           pushlog_by_value({by:String}, topic, env, push_type, why, app_version) AS d_error,
           arrayJoin(if(kind_err = 1 AND d_response <> d_error, [(toInt8(2), d_error), (toInt8(0), d_response)],
                        [(kind_err, if(kind_err = 0, d_response, d_error))])) AS role, cnt
    FROM (
      -- cnt responses alike: the range's whole hours from kept_hourly_responses (none for buckets
      -- finer than an hour), the responses of its partial hours and the transport failures one by one.
      SELECT hour * 3600000 AS time_ms, topic, env, push_type, reason, reg_app_version AS app_version, status,
             coalesce(toString(reason), error) AS why, toNullable(toString(category)) AS cat,
             toInt8(status <> 200) AS kind_err, responses AS cnt FROM pushlog.kept_hourly_responses
      WHERE hour >= lo_h AND hour < hi_h
        AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
      UNION ALL
      SELECT time_ms, topic, env, push_type, reason, reg_app_version, status, coalesce(toString(reason), error),
             toNullable(toString(category)), toInt8(status <> 200), toUInt64(1) FROM pushlog.kept_responses
      WHERE time_ms >= since AND time_ms < until AND NOT (time_ms >= lo_h * 3600000 AND time_ms < hi_h * 3600000)
        AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
      UNION ALL
      SELECT time_ms, topic, env, push_type, reason, reg_app_version, status, coalesce(toString(reason), error),
             toNullable(toString(category)), toInt8(2), toUInt64(1) FROM pushlog.kept_sends
      WHERE category = 'transport' AND time_ms >= since AND time_ms < until
        AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})))
  GROUP BY b, d, status, why, cat, err
  UNION ALL
  SELECT arrayJoin(pushlog_fill(since, until, lo, hi, n, {by:String})) AS b, '',
         NULL, NULL, NULL, toInt8(-1), toUInt64(0)
  FROM pushlog.kept_data_span WHERE NOT pushlog_is_dimension({by:String})
), w AS (
  SELECT b, d, status, why, cat, err, n, sumIf(n, err IN (0, 1)) OVER (PARTITION BY b, d) AS bucket_responses,
         countIf(err > 0) OVER (PARTITION BY b, d) AS errors, row_number() OVER (PARTITION BY b, d ORDER BY err) AS k
  FROM g
)
SELECT bucket, status, reason, category, responses, bucket_responses,
       if(bucket_responses = 0, NULL, pushlog_round(responses / bucket_responses, 6)) AS share
FROM (
  SELECT b, d, pushlog_by_label(b, d, {by:String}) AS bucket, if(err > 0, status, NULL) AS status,
         if(err > 0, coalesce(why, ''), NULL) AS reason, if(err > 0, coalesce(cat, 'unknown'), NULL) AS category,
         if(err > 0, n, 0) AS responses, toUInt64(bucket_responses) AS bucket_responses
  FROM w WHERE err > 0 OR (errors = 0 AND k = 1)
)
ORDER BY b, d, responses DESC, status NULLS FIRST, reason, category;
