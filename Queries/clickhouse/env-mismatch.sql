-- title: Sandbox/production mismatches
-- description: Responses sent to an APNs environment other than the one the token was registered
-- description: in, how much of BadDeviceToken that explains, malformed tokens, and env-key errors.
-- description: ClickHouse version of Queries/env-mismatch.sql (same sections, columns and labels).
-- param: since  start of the range, {since:DateTime64(3)}; 1900-01-01 = open
-- param: until  end of the range, exclusive, {until:DateTime64(3)}; 2299-12-31 = open
-- param: topic  only responses for this topic, {topic:String}; '' = all
-- param: env  only responses sent to this env, {env:String}; '' = all
-- param: by enum(topic,env,app_version,push_type,reason)  by_bucket by a dimension (no by_bucket without --by), {by:String}

-- section: summary
-- A token's registered env is the env of its latest registration; a mismatched send is a
-- response whose env differs from it. malformed_token_sends: responses to non-hex tokens.
-- n responses alike (pushlog.kept_response_counts, facts.sql: whole hours counted, partial ones row by row).
WITH h AS (
  SELECT * FROM pushlog.kept_response_counts(since = {since:DateTime64(3)}, until = {until:DateTime64(3)},
                                             topic = {topic:String}, env = {env:String})
)
SELECT sum(n) AS responses, sumIf(n, mismatched = 1) AS mismatched_sends,
       sumIf(n, reason = 'BadDeviceToken') AS bad_device_token,
       sumIf(n, reason = 'BadDeviceToken' AND mismatched = 1) AS bad_device_token_explained,
       sumIf(n, malformed = 1) AS malformed_token_sends, sumIf(n, category = 'env-config') AS env_key_errors
FROM h;

-- section: by_pair
-- Mismatched sends only: responses sums to the summary's mismatched_sends; tokens is a distinct
-- count per pair (a token sent to both envs counts in each).
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until
SELECT s.reg_env AS registered_env, s.env AS sent_env, count() AS responses, uniqExact(s.token) AS tokens
FROM pushlog.kept_responses AS s
WHERE s.time_ms >= since AND s.time_ms < until
  AND ({topic:String} = '' OR s.topic = {topic:String}) AND ({env:String} = '' OR s.env = {env:String})
  AND s.reg_env IS NOT NULL AND s.env IS NOT NULL AND s.env <> s.reg_env
GROUP BY registered_env, sent_env ORDER BY responses DESC;

-- section: by_app_version
-- app_version is that of the token's latest registration. Every column sums to the summary's
-- column of the same name.
-- n responses alike (pushlog.kept_response_counts, facts.sql: whole hours counted, partial ones row by row).
WITH h AS (
  SELECT * FROM pushlog.kept_response_counts(since = {since:DateTime64(3)}, until = {until:DateTime64(3)},
                                             topic = {topic:String}, env = {env:String})
)
SELECT coalesce(reg_app_version, '(unknown)') AS app_version, sum(n) AS responses,
       sumIf(n, reason = 'BadDeviceToken') AS bad_device_token, sumIf(n, mismatched = 1) AS mismatched_sends,
       sumIf(n, malformed = 1) AS malformed_token_sends
FROM h
GROUP BY app_version ORDER BY bad_device_token DESC, responses DESC;

-- section: by_bucket
-- Only with --by: the summary's figures per topic, env (sent env), app_version (of the token's
-- latest registration), push_type or reason; the buckets add up to the summary.
-- n responses alike (pushlog.kept_response_counts, facts.sql: whole hours counted, partial ones row by row).
WITH h AS (
  SELECT * FROM pushlog.kept_response_counts(since = {since:DateTime64(3)}, until = {until:DateTime64(3)},
                                             topic = {topic:String}, env = {env:String})
)
SELECT if({by:String} = 'app_version', coalesce(reg_app_version, '(unknown)'),
          pushlog_by_value({by:String}, topic, env, push_type, reason, NULL)) AS bucket,
       sum(n) AS responses, sumIf(n, mismatched = 1) AS mismatched_sends, sumIf(n, reason = 'BadDeviceToken') AS bad_device_token,
       sumIf(n, reason = 'BadDeviceToken' AND mismatched = 1) AS bad_device_token_explained,
       sumIf(n, malformed = 1) AS malformed_token_sends, sumIf(n, category = 'env-config') AS env_key_errors
FROM h
GROUP BY bucket ORDER BY responses DESC, bucket;
