-- title: Sandbox/production mismatches
-- description: Responses sent to an APNs environment other than the one the token was registered
-- description: in, how much of BadDeviceToken that explains, malformed tokens, and env-key errors.
-- param: since  start of the range
-- param: until  end of the range, exclusive
-- param: topic  only responses for this topic
-- param: env  only responses sent to this env

-- section: summary
-- A token's registered env is the env of its latest registration; a mismatched send is a
-- response whose env differs from it. malformed_token_sends: responses to non-hex tokens.
WITH r AS (
  SELECT s.token_id, s.env AS sent_env, s.reason, s.category, f.reg_env, f.malformed,
         (f.reg_env IS NOT NULL AND s.env IS NOT NULL AND s.env <> f.reg_env) AS mismatched
  FROM sends s LEFT JOIN token_facts f ON f.token_id = s.token_id
  WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND s.t >= :since AND s.t < :until
    AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
)
SELECT count(*) AS responses,
       coalesce(sum(mismatched), 0) AS mismatched_sends,
       coalesce(sum(reason = 'BadDeviceToken'), 0) AS bad_device_token,
       coalesce(sum(reason = 'BadDeviceToken' AND mismatched), 0) AS bad_device_token_explained,
       coalesce(sum(malformed), 0) AS malformed_token_sends,
       coalesce(sum(category = 'env-config'), 0) AS env_key_errors
FROM r;

-- section: by_pair
WITH r AS (
  SELECT s.token_id, s.env AS sent_env, f.reg_env
  FROM sends s JOIN token_facts f ON f.token_id = s.token_id
  WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND s.t >= :since AND s.t < :until
    AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
    AND f.reg_env IS NOT NULL AND s.env IS NOT NULL AND s.env <> f.reg_env
)
SELECT reg_env AS registered_env, sent_env, count(*) AS responses, count(DISTINCT token_id) AS tokens
FROM r GROUP BY reg_env, sent_env ORDER BY responses DESC;

-- section: by_app_version
-- app_version is that of the token's latest registration.
WITH r AS (
  SELECT f.reg_app_version, s.reason, f.malformed,
         (f.reg_env IS NOT NULL AND s.env IS NOT NULL AND s.env <> f.reg_env) AS mismatched
  FROM sends s LEFT JOIN token_facts f ON f.token_id = s.token_id
  WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND s.t >= :since AND s.t < :until
    AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
)
SELECT coalesce(reg_app_version, '(unknown)') AS app_version, count(*) AS responses,
       coalesce(sum(reason = 'BadDeviceToken'), 0) AS bad_device_token,
       coalesce(sum(mismatched), 0) AS mismatched_sends,
       coalesce(sum(malformed), 0) AS malformed_token_sends
FROM r GROUP BY 1 ORDER BY bad_device_token DESC, responses DESC;
