-- title: Opt-out after opt-in
-- description: Of the units (devices or users) that opted in to notifications, how many later
-- description: turned them off, how fast, and how each weekly opt-in cohort held up.
-- records: observations
-- param: since time  start of the range (units by opt-in time)
-- param: until time  end of the range, exclusive
-- param: unit enum(device,user) = device  what opts in and turns off: a device, or a user (any of its devices)
-- column: cohort key
-- column: opted_in,on_at_start count better=none unit={unit}s
-- column: turned_off_share rate  Opted-in {units} that turned off
-- column: median_days_to_off number unit=days
-- column: still_on_7d_share,still_on_30d_share rate better=up
-- column: turn_off_rate rate  {Units} turning notifications off

-- section: summary
-- Observations are the auth of register and settings records (device_facts is derived from
-- them after each ingest). A device opts in at its first authorized observation and turns off
-- at its first later denied one. A user opts in when its first device does and turns off when a
-- device that had opted in turns off. uninstalled: opted-in units not turned off whose last
-- token got a 410 and was not registered again after the 410's timestamp. provisional: units
-- whose first decided observation (not notDetermined) is provisional.
WITH unit_facts AS (
  SELECT f.opted_in, f.opted_out, f.first_decided, f.first_decided_auth, f.last_reg,
         CASE WHEN :unit = 'user' THEN coalesce((SELECT name FROM users WHERE id = f.user_id), f.unit) ELSE f.unit END AS unit,
         coalesce(t.first_410 IS NOT NULL AND t.last_reg <= coalesce(t.first_410_ts, t.first_410), 0) AS gone
  FROM device_facts f LEFT JOIN token_facts t ON t.token_id = f.last_token_id
), ranked AS (
  SELECT d.*, row_number() OVER (PARTITION BY unit ORDER BY last_reg DESC NULLS LAST) AS by_last_reg,
              row_number() OVER (PARTITION BY unit ORDER BY first_decided NULLS LAST) AS by_first_decided
  FROM unit_facts d
), units AS (
  SELECT unit, min(opted_in) AS opt_in, min(opted_out) AS off,
         max(CASE WHEN by_last_reg = 1 THEN gone END) AS last_gone,
         min(first_decided) AS first_decided,
         max(CASE WHEN by_first_decided = 1 THEN first_decided_auth = 'provisional' END) AS first_provisional
  FROM ranked GROUP BY unit
), units_in_range AS (
  SELECT *, opt_in >= :since AND opt_in < :until AS in_range FROM units
)
SELECT coalesce(sum(in_range), 0) AS opted_in,
       coalesce(sum(in_range AND off IS NOT NULL), 0) AS turned_off,
       round(1.0 * sum(in_range AND off IS NOT NULL) / nullif(sum(in_range), 0), 6) AS turned_off_share,
       round(median(CASE WHEN in_range AND off IS NOT NULL THEN (off - opt_in) / 86400000.0 END), 3) AS median_days_to_off,
       coalesce(sum(in_range AND off IS NULL AND last_gone = 1), 0) AS uninstalled,
       coalesce(sum(first_provisional = 1 AND first_decided >= :since AND first_decided < :until), 0) AS provisional
FROM units_in_range;

-- section: by_cohort
-- cohort: ISO week of opt-in. opted_in, turned_off: units of the cohort (additive across cohorts).
-- still_on_7d_share / still_on_30d_share: of the cohort's units whose opt-in is at least 7 / 30
-- days before the end of the data (or of --until, when earlier), the share not turned off within
-- 7 / 30 days of opting in. Younger units are right-censored and left out (eligible_7d /
-- eligible_30d count the units used); a cohort with no eligible unit has no value (null), never 0.
WITH data_end AS (
  -- the latest registration is token_facts' (registers is keyed by token: its max is a scan)
  SELECT min(:until, (SELECT max(hi) FROM (SELECT max(time_ms) AS hi FROM sends UNION ALL SELECT max(last_reg) FROM token_facts
                                           UNION ALL SELECT max(time_ms) FROM settings))) AS data_end
), units AS (
  SELECT CASE WHEN :unit = 'user' THEN coalesce((SELECT name FROM users WHERE id = user_id), unit) ELSE unit END AS who,
         min(opted_in) AS opt_in, min(opted_out) AS off
  FROM device_facts GROUP BY 1
), cohort_units AS (
  SELECT iso_week_start(opt_in) AS w, opt_in, off,
         (off IS NOT NULL AND off < opt_in + 7 * 86400000) AS off7,
         opt_in + 7 * 86400000 <= span.data_end AS eligible7,
         (off IS NOT NULL AND off < opt_in + 30 * 86400000) AS off30,
         opt_in + 30 * 86400000 <= span.data_end AS eligible30
  FROM units, data_end span WHERE opt_in >= :since AND opt_in < :until
)
SELECT iso_week(w) AS cohort, count(*) AS opted_in, sum(off IS NOT NULL) AS turned_off,
       round(1.0 * sum(off IS NOT NULL) / count(*), 6) AS turned_off_share,
       round(1.0 * sum(eligible7 AND NOT off7) / nullif(sum(eligible7), 0), 6) AS still_on_7d_share,
       sum(eligible7) AS eligible_7d,
       round(1.0 * sum(eligible30 AND NOT off30) / nullif(sum(eligible30), 0), 6) AS still_on_30d_share,
       sum(eligible30) AS eligible_30d
FROM cohort_units GROUP BY w ORDER BY w;

-- section: turn_off_rate
-- An age-invariant rate for a period [since, until): units opted in and still on at its start
-- (opt-in before since, not turned off before since) = on_at_start; of those, the units that
-- turned off during the period = turned_off; turn_off_rate = turned_off / on_at_start. Units that
-- opted in during the period are not in it. Without --since it has no value.
WITH units AS (
  -- Per device: device_facts has one row per unit (no grouping: the weekly page asks this for
  -- twelve weeks); per user, its devices' earliest facts.
  SELECT opted_in AS opt_in, opted_out AS off FROM device_facts WHERE :unit IS NOT 'user'
  UNION ALL
  SELECT min(opted_in), min(opted_out) FROM device_facts WHERE :unit = 'user'
  GROUP BY coalesce((SELECT name FROM users WHERE id = user_id), unit)
), on_at_start AS (
  SELECT * FROM units WHERE opt_in < :since AND (off IS NULL OR off >= :since)
)
SELECT count(*) AS on_at_start, coalesce(sum(coalesce(off < :until, 0)), 0) AS turned_off,
       round(1.0 * sum(coalesce(off < :until, 0)) / nullif(count(*), 0), 6) AS turn_off_rate
FROM on_at_start;
