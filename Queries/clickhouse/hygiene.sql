-- title: Provider hygiene
-- description: The rules of a correct APNs provider, checked from its own logs: per rule how
-- description: often it was broken, since when, an example to look at and what to change.
-- description: ClickHouse version of Queries/hygiene.sql (same sections, columns and labels).
-- param: since  start of the range (responses by time), {since:DateTime64(3)}; 1900-01-01 = open
-- param: until  end of the range, exclusive, {until:DateTime64(3)}; 2299-12-31 = open
-- param: topic  only responses for this topic, {topic:String}; '' = all
-- param: env  only responses sent to this env, {env:String}; '' = all
-- param: rule  only this rule, {rule:String}; '' = all
-- The rules, their data and 'not observable' are Queries/hygiene.sql's: every violation is a
-- response dated by its own time, except the two retry rules, whose retries are dated and
-- selected by the error they follow (the retries are kept over all history, facts.sql). Both
-- sections read the rules over the range from pushlog.kept_hygiene_rules (facts.sql): the whole
-- UTC hours of the range from the kept hours, the partial hours at its ends from the kept rows.

-- section: rules
-- One row per rule, in a fixed order. example: the apns-id of one violating response (the
-- first for the per-response and background rules, else the one stored first), example_token
-- its token. "Stored first": in the order pushlog stores records (files in the order ingested,
-- then lines).
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
malformed_detail AS (
  -- The app versions that registered the malformed tokens (unmasked) the range sent to.
  SELECT if(empty(versions), NULL, concat('registered by app versions ', arrayStringConcat(
           arrayMap(x -> concat(x.2, ' (', toString(-x.1), ' tokens)'), arraySort(versions)), ', '))) AS detail
  FROM (SELECT groupArray(tuple(-toInt64(n), v)) AS versions FROM (
          SELECT coalesce(app_version, '(unknown)') AS v, uniqExact(token) AS n FROM pushlog.kept_hygiene_malformed_registers
          WHERE token IN (SELECT token FROM pushlog.kept_hygiene_violations WHERE ord = 9 AND t >= since AND t < until
                            AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String}))
          GROUP BY v))
), provider_detail AS (
  SELECT if(empty(reasons), NULL, arrayStringConcat(arrayMap(x -> concat(x.2, ' ', toString(-x.1)), arraySort(reasons)), ', ')) AS detail
  FROM (SELECT groupArray(tuple(-toInt64(n), reason)) AS reasons FROM (
          SELECT reason, count() AS n FROM pushlog.kept_hygiene_violations
          WHERE ord = 10 AND t >= since AND t < until
            AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
          GROUP BY reason))
)
SELECT h.rule AS rule,
       if(h.missing IS NULL, toInt64(h.violations)::Variant(Int64, String), 'not observable'::Variant(Int64, String)) AS violations,
       toInt64(h.checked) AS checked,
       if(h.missing IS NULL AND h.checked > 0, pushlog_round(h.violations / h.checked, 6), NULL) AS share,
       if(h.missing IS NULL AND h.first_t IS NOT NULL, pushlog_rfc3339(h.first_t), NULL) AS first_seen,
       if(h.missing IS NULL AND h.last_t IS NOT NULL, pushlog_rfc3339(h.last_t), NULL) AS last_seen,
       if(h.missing IS NULL, h.example, NULL) AS example, if(h.missing IS NULL, nullIf(h.example_token, ''), NULL) AS example_token,
       coalesce(h.missing, multiIf(h.ord = 9, (SELECT detail FROM malformed_detail), h.ord = 10, (SELECT detail FROM provider_detail), NULL))
         AS detail,
       ['send background pushes with content-available only; put alert, sound and badge in an alert push',
        'send background pushes with apns-priority 5',
        'give every alert push an alert (title/body), sound or badge, or send it as background',
        'set apns-push-type on every request (alert, background, voip, ...)',
        'set mutable-content only on pushes with an alert: the service extension never runs without one',
        'back off exponentially after 429 and 5xx: wait at least 1 s, longer at each attempt',
        'never retry 400 and 410 answers: fix the request, or drop the token',
        'stop sending to a token after its 410 until the app registers it again',
        'upload tokens as hex (the bytes of deviceToken, hex-encoded), not the description of the Data',
        'refresh the provider JWT every 20 to 60 minutes, and reuse it meanwhile'][h.ord] AS advice
FROM pushlog.kept_hygiene_rules(since = {since:DateTime64(3)}, until = {until:DateTime64(3)}, topic = {topic:String}, env = {env:String}) AS h
WHERE {rule:String} = '' OR h.rule = {rule:String}
ORDER BY h.ord
-- Every branch of the `if`s above is computed (none can fail on the rows it does not pick): the
-- server's lazy evaluation of a branch computed the view's arrays again for it.
SETTINGS allow_experimental_variant_type = 1, short_circuit_function_evaluation = 'disable';

-- section: by_day
-- Violations per UTC day and rule (days without any are left out; rules not observable too).
SELECT pushlog_bucket(d * 86400000, 'day') AS day, h.rule AS rule, toInt64(n) AS violations
FROM pushlog.kept_hygiene_rules(since = {since:DateTime64(3)}, until = {until:DateTime64(3)}, topic = {topic:String}, env = {env:String}) AS h
ARRAY JOIN h.days AS d, h.per_day AS n
WHERE h.missing IS NULL AND ({rule:String} = '' OR h.rule = {rule:String})
ORDER BY d, h.ord;
