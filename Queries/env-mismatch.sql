-- title: Sandbox/production mismatches
-- description: Responses sent to an APNs environment other than the one the token was registered
-- description: in, how much of BadDeviceToken that explains, malformed tokens, and env-key errors.
-- records: responses
-- param: since time  start of the range
-- param: until time  end of the range, exclusive
-- param: topic text  only responses for this topic
-- param: env text  only responses sent to this env
-- param: by enum(topic,env,app_version,push_type,reason)  by_bucket by a dimension (no by_bucket without --by)
-- column: bucket,registered_env,sent_env,app_version key
-- column: responses count better=none unit=responses  APNs responses
-- column: mismatched_sends count unit=sends needs=env,registrations,token  Sends to the wrong APNs env
-- column: bad_device_token_explained,tokens count needs=env,registrations,token
-- column: bad_device_token count unit=responses  BadDeviceToken responses
-- column: malformed_token_sends count unit=sends needs=token  Sends to malformed tokens
-- materialize: token_envs

-- common:
-- Responses aggregated per token and env first (through the covering index sends_token),
-- then joined to each token's facts; every section reads `token_envs`.
per_token_env AS (
  -- count(CASE ...) rather than sum(a = b): the same counts (every reader sums them under
  -- coalesce), at a fraction of the cost per row.
  SELECT s.token_id, s.env_id, count(*) AS n,
         count(CASE WHEN s.reason_id = (SELECT id FROM reasons WHERE name = 'BadDeviceToken') THEN 1 END) AS bdt,
         count(CASE WHEN s.category_id = (SELECT id FROM categories WHERE name = 'env-config') THEN 1 END) AS env_key
  FROM responses s
  WHERE +s.time_ms >= :since AND +s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
  GROUP BY s.token_id, s.env_id
), token_envs AS (
  SELECT p.*, f.reg_env_id, f.reg_app_version_id, coalesce(f.malformed, 0) AS malformed,
         coalesce(f.reg_env_id IS NOT NULL AND p.env_id IS NOT NULL AND p.env_id <> f.reg_env_id, 0) AS mismatched
  FROM per_token_env p LEFT JOIN token_facts f ON f.token_id = p.token_id
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
FROM token_envs;

-- section: by_pair
-- Mismatched sends only: responses sums to the summary's mismatched_sends; tokens is a distinct
-- count per pair (a token sent to both envs counts in each).
SELECT (SELECT name FROM envs WHERE id = reg_env_id) AS registered_env, (SELECT name FROM envs WHERE id = env_id) AS sent_env,
       sum(n) AS responses, count(DISTINCT token_id) AS tokens
FROM token_envs WHERE mismatched GROUP BY reg_env_id, env_id ORDER BY responses DESC;

-- section: by_app_version
-- app_version is that of the token's latest registration. Every column sums to the summary's
-- column of the same name.
SELECT coalesce((SELECT name FROM app_versions WHERE id = reg_app_version_id), '(unknown)') AS app_version, sum(n) AS responses,
       coalesce(sum(bdt), 0) AS bad_device_token,
       coalesce(sum(n * mismatched), 0) AS mismatched_sends,
       coalesce(sum(n * malformed), 0) AS malformed_token_sends
FROM token_envs GROUP BY 1 ORDER BY bad_device_token DESC, responses DESC;

-- section: by_bucket
-- Only with --by: the summary's figures per topic, env (sent env), app_version (of the token's
-- latest registration), push_type or reason; the buckets add up to the summary. Its own per-token
-- pass (keyed by the dimension too), so the sections above keep their cheaper grouping.
WITH per_token_env_bucket AS (
  SELECT s.token_id, s.env_id, by_key(:by, s.time_ms, s.topic_id, s.env_id, s.push_type_id, s.reason_id, NULL) AS dk,
         count(*) AS n, count(CASE WHEN s.reason_id = (SELECT id FROM reasons WHERE name = 'BadDeviceToken') THEN 1 END) AS bdt,
         count(CASE WHEN s.category_id = (SELECT id FROM categories WHERE name = 'env-config') THEN 1 END) AS env_key
  FROM responses s
  WHERE +s.time_ms >= :since AND +s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
  GROUP BY s.token_id, s.env_id, dk
), token_env_buckets AS (
  SELECT p.*, coalesce((SELECT name FROM app_versions WHERE id = f.reg_app_version_id), '(unknown)') AS app_version,
         coalesce(f.malformed, 0) AS malformed,
         coalesce(f.reg_env_id IS NOT NULL AND p.env_id IS NOT NULL AND p.env_id <> f.reg_env_id, 0) AS mismatched
  FROM per_token_env_bucket p LEFT JOIN token_facts f ON f.token_id = p.token_id
)
SELECT CASE WHEN :by = 'app_version' THEN app_version ELSE dk END AS bucket,
       sum(n) AS responses,
       coalesce(sum(n * mismatched), 0) AS mismatched_sends,
       coalesce(sum(bdt), 0) AS bad_device_token,
       coalesce(sum(bdt * mismatched), 0) AS bad_device_token_explained,
       coalesce(sum(n * malformed), 0) AS malformed_token_sends,
       coalesce(sum(env_key), 0) AS env_key_errors
FROM token_env_buckets GROUP BY 1 ORDER BY responses DESC, bucket;
