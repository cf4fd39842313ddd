-- title: Sandbox/production mismatches
-- description: Responses sent to an APNs environment other than the one the token was registered
-- description: in, how much of BadDeviceToken that explains, malformed tokens, and env-key errors.
-- param: since  start of the range
-- param: until  end of the range, exclusive
-- param: topic  only responses for this topic
-- param: env  only responses sent to this env
-- param: by  by_bucket by a dimension: topic, env, app_version, push_type, reason (no by_bucket without --by)

-- common:
-- Responses aggregated per token and env first (through the covering index sends_token),
-- then joined to each token's facts; every section reads `r`.
per AS (
  SELECT s.token_id, s.env, count(*) AS n, sum(s.reason = 'BadDeviceToken') AS bdt,
         sum(s.category = 'env-config') AS env_key
  FROM sends s
  WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND +s.t >= :since AND +s.t < :until
    AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
  GROUP BY s.token_id, s.env
), r AS (
  SELECT p.*, f.reg_env, f.reg_app_version, coalesce(f.malformed, 0) AS malformed,
         coalesce(f.reg_env IS NOT NULL AND p.env IS NOT NULL AND p.env <> f.reg_env, 0) AS mismatched
  FROM per p LEFT JOIN token_facts f ON f.token_id = p.token_id
)

-- section: summary
-- A token's registered env is the env of its latest registration; a mismatched send is a
-- response whose env differs from it. malformed_token_sends: responses to non-hex tokens.
SELECT coalesce(sum(n), 0) AS responses,
       coalesce(sum(n * mismatched), 0) AS mismatched_sends,
       coalesce(sum(bdt), 0) AS bad_device_token,
       coalesce(sum(bdt * mismatched), 0) AS bad_device_token_explained,
       coalesce(sum(n * malformed), 0) AS malformed_token_sends,
       coalesce(sum(env_key), 0) AS env_key_errors
FROM r;

-- section: by_pair
-- Mismatched sends only: responses sums to the summary's mismatched_sends; tokens is a distinct
-- count per pair (a token sent to both envs counts in each).
SELECT reg_env AS registered_env, env AS sent_env, sum(n) AS responses, count(DISTINCT token_id) AS tokens
FROM r WHERE mismatched GROUP BY reg_env, env ORDER BY responses DESC;

-- section: by_app_version
-- app_version is that of the token's latest registration. Every column sums to the summary's
-- column of the same name.
SELECT coalesce(reg_app_version, '(unknown)') AS app_version, sum(n) AS responses,
       coalesce(sum(bdt), 0) AS bad_device_token,
       coalesce(sum(n * mismatched), 0) AS mismatched_sends,
       coalesce(sum(n * malformed), 0) AS malformed_token_sends
FROM r GROUP BY 1 ORDER BY bad_device_token DESC, responses DESC;

-- section: by_bucket
-- Only with --by: the summary's figures per topic, env (sent env), app_version (of the token's
-- latest registration), push_type or reason; the buckets add up to the summary. Its own per-token
-- pass (keyed by the dimension too), so the sections above keep their cheaper grouping.
WITH perk AS (
  SELECT s.token_id, s.env, by_key(:by, s.t, s.topic, s.env, s.push_type, s.reason, NULL) AS dk,
         count(*) AS n, sum(s.reason = 'BadDeviceToken') AS bdt, sum(s.category = 'env-config') AS env_key
  FROM sends s
  WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND +s.t >= :since AND +s.t < :until
    AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
  GROUP BY s.token_id, s.env, dk
), rk AS (
  SELECT p.*, coalesce(f.reg_app_version, '(unknown)') AS app_version, coalesce(f.malformed, 0) AS malformed,
         coalesce(f.reg_env IS NOT NULL AND p.env IS NOT NULL AND p.env <> f.reg_env, 0) AS mismatched
  FROM perk p LEFT JOIN token_facts f ON f.token_id = p.token_id
)
SELECT CASE WHEN :by = 'app_version' THEN app_version ELSE dk END AS bucket,
       sum(n) AS responses,
       coalesce(sum(n * mismatched), 0) AS mismatched_sends,
       coalesce(sum(bdt), 0) AS bad_device_token,
       coalesce(sum(bdt * mismatched), 0) AS bad_device_token_explained,
       coalesce(sum(n * malformed), 0) AS malformed_token_sends,
       coalesce(sum(env_key), 0) AS env_key_errors
FROM rk GROUP BY 1 ORDER BY responses DESC, bucket;
