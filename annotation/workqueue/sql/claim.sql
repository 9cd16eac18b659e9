-- The claim in one round trip (annotation.workqueue.store.postgresql, PostgreSQLStore._claim): read the campaign (by
-- ${campaign_by}) and whether the annotator may claim now; if so, pick their next pair (skipping rows other claims
-- hold), take a slot, write the lease and its event, and read what the display needs of the pair.
--
-- It claims only when the annotator is a member admitted to the queue who passed the entry gate (no crowd entry to
-- check; or the caller checked it: %(gate_passed)s), the campaign is active, they hold no lease in it, and no lease of
-- the campaign is due (or the caller has just expired the due ones: %(due_expired)s). Otherwise it only reads, and
-- the service decides (their open lease, 403, nothing to do, or the due leases to expire first). The row comes back
-- for any campaign found: the campaign, the membership read (member?, open lease, its expiry, any lease due, held,
-- profile missing, crowd entry), whether it looked for a pair, then the lease and its display (NULL when none was taken).
--
-- Gold or not: the caller's %(gold)s, else the draw (%(draw)s < gold_rate), as assignment_claim describes. The
-- orientation bit is annotation.workqueue.rules.orientation_swapped in SQL. Every WHERE on the pair repeats the claimable
-- condition (models.PAIR_CLAIMABLE) verbatim, so the planner matches the partial indexes, and so a row another
-- claim updated is checked again once locked.
--
-- The pick follows pair_claim_idx's order without paying for the annotator's own backlog:
--  1. the first of the top ${head_size} entries of pair_claim_idx that they never had (usually the very first);
--  2. if the head holds nothing for them and is full (its last entry has priority `floor`), the first untouched
--     pair (pair_fresh_idx) of priority `floor` or above;
--  3. else the plain walk of pair_claim_idx.
-- OFFSET 0 keeps "never had it" a per-candidate probe of the (pair, annotator) unique index. The head's size is
-- written into the statement, not passed as a parameter: with a parameter in LIMIT and OFFSET the generic plan
-- of the prepared statement looked costlier, and PostgreSQL planned it anew on every claim.
-- The ${name}s are filled from the models' _meta on first use (annotation.workqueue.sql.statement).
WITH claimant AS (
    -- The campaign's columns (those go and leased read among them), then the membership read.
    SELECT ${claim_campaign_columns}, m.${member_user} IS NOT NULL AS is_member,
        o.id AS open_id, o.expires_at AS open_expires_at,
        EXISTS (SELECT FROM ${assignment} d WHERE d.campaign_id = c.id AND d.status = 'active' AND d.expires_at <= %(now)s)
            AS any_due,
        -- Not admitted to the queue (annotation.workqueue.services.qualification.rater_admission says why): paused,
        -- or the campaign has a calibration set and the rater passed no round of its kind.
        (EXISTS (SELECT FROM ${rater_pause} z
                 WHERE z.campaign_id = c.id AND z.rater_id = %(annotator)s AND z.lifted_at IS NULL)
         OR (c.calibration_set_id IS NOT NULL
             AND NOT EXISTS (SELECT FROM ${qualification_round} r
                             WHERE r.rater_id = %(annotator)s AND r.kind = c.kind AND r.verdict = 'passed'))) AS held,
        -- The entry gate (annotation.workqueue.services.profile.profile_required): the campaign asks a rater profile
        -- they have not answered; the crowd entry they came in by, if any (its quota is checked by the service).
        EXISTS (SELECT FROM ${campaign_questionnaire} cq
                WHERE cq.campaign_id = c.id
                  AND NOT EXISTS (SELECT FROM ${profile_answer} pa
                                  WHERE pa.questionnaire_id = cq.questionnaire_id AND pa.user_id = %(annotator)s))
            AS profile_missing,
        (SELECT e.id FROM ${crowd_entry} e
         JOIN ${crowd_link} l ON l.id = e.link_id JOIN ${crowd_participant} cp ON cp.id = e.participant_id
         WHERE l.campaign_id = c.id AND cp.user_id = %(annotator)s ORDER BY e.entered_at DESC LIMIT 1) AS crowd_entry_id
    FROM ${campaign} c
    LEFT JOIN ${members} m ON m.${member_campaign} = c.id AND m.${member_user} = %(annotator)s
    LEFT JOIN LATERAL (SELECT id, expires_at FROM ${assignment}
                       WHERE annotator_id = %(annotator)s AND campaign_id = c.id AND status = 'active' LIMIT 1) o ON true
    WHERE c.${campaign_by} = %(campaign)s
), go AS (
    SELECT c.id, COALESCE(%(gold)s::boolean, %(draw)s::float8 < c.gold_rate) AS gold,
           c.orientation_seed, c.lease_minutes
    FROM claimant c
    WHERE c.is_member AND NOT c.held AND c.status = 'active' AND c.open_id IS NULL
      AND ((NOT c.profile_missing AND c.crowd_entry_id IS NULL) OR %(gate_passed)s::boolean)
      AND (NOT c.any_due OR %(due_expired)s::boolean)
), floor AS (
    SELECT p.priority FROM ${pair} p
    WHERE (p.campaign_id, p.is_gold) = (SELECT id, gold FROM go) AND p.status = 'queued'
      AND (p.active_claims + p.annotations_done) < p.required_annotations
    ORDER BY p.priority DESC, (p.active_claims + p.annotations_done) DESC, p.id OFFSET ${head_last} LIMIT 1
), picked AS (
    SELECT COALESCE(
        (SELECT p.id
         FROM (SELECT p.id, p.priority, (p.active_claims + p.annotations_done) AS taken FROM ${pair} p
               WHERE (p.campaign_id, p.is_gold) = (SELECT id, gold FROM go) AND p.status = 'queued'
                 AND (p.active_claims + p.annotations_done) < p.required_annotations
               ORDER BY p.priority DESC, (p.active_claims + p.annotations_done) DESC, p.id LIMIT ${head_size}) head
         JOIN ${pair} p ON p.id = head.id
         WHERE (p.campaign_id, p.is_gold) = (SELECT id, gold FROM go) AND p.status = 'queued'
           AND (p.active_claims + p.annotations_done) < p.required_annotations
           AND NOT EXISTS (SELECT 1 FROM ${assignment} a WHERE a.pair_id = p.id AND a.annotator_id = %(annotator)s OFFSET 0)
         ORDER BY head.priority DESC, head.taken DESC, head.id
         LIMIT 1 FOR UPDATE OF p SKIP LOCKED),
        (SELECT p.id FROM ${pair} p
         WHERE (p.campaign_id, p.is_gold) = (SELECT id, gold FROM go) AND p.status = 'queued'
           AND (p.active_claims + p.annotations_done) < p.required_annotations
           AND p.active_claims = 0 AND p.annotations_done = 0
           AND p.priority >= (SELECT priority FROM floor)
           AND NOT EXISTS (SELECT 1 FROM ${assignment} a WHERE a.pair_id = p.id AND a.annotator_id = %(annotator)s OFFSET 0)
         ORDER BY p.priority DESC, p.id
         LIMIT 1 FOR UPDATE OF p SKIP LOCKED),
        (SELECT p.id FROM ${pair} p
         WHERE (p.campaign_id, p.is_gold) = (SELECT id, gold FROM go) AND p.status = 'queued'
           AND (p.active_claims + p.annotations_done) < p.required_annotations
           AND NOT EXISTS (SELECT 1 FROM ${assignment} a WHERE a.pair_id = p.id AND a.annotator_id = %(annotator)s OFFSET 0)
           AND EXISTS (SELECT FROM floor)
         ORDER BY p.priority DESC, (p.active_claims + p.annotations_done) DESC, p.id
         LIMIT 1 FOR UPDATE OF p SKIP LOCKED)
    ) AS id
), taken AS (
    UPDATE ${pair} p SET active_claims = p.active_claims + 1 FROM picked WHERE p.id = picked.id RETURNING p.id
), leased AS (
    INSERT INTO ${assignment}
        (pair_id, campaign_id, annotator_id, status, swapped, claimed_at, expires_at, skip_reason, draft)
    SELECT taken.id, go.id, %(annotator)s, 'active',
           get_byte(sha256(convert_to(go.orientation_seed || ':' || taken.id::text || ':' || %(annotator)s::text,
                                      'UTF8')), 0) & 1 = 1,
           %(now)s, %(now)s + make_interval(mins => go.lease_minutes), '', '{}'::jsonb
    FROM taken, go
    RETURNING id, pair_id, swapped, expires_at
), recorded AS (
    INSERT INTO ${assignment_event} (assignment_id, campaign_id, annotator_id, kind, at, detail)
    SELECT leased.id, go.id, %(annotator)s, 'claim', %(now)s, '{}'::jsonb FROM leased, go
)
SELECT c.*, EXISTS (SELECT FROM go),
       leased.id, leased.pair_id, leased.swapped, leased.expires_at, ${claim_display_columns}
FROM claimant c
LEFT JOIN leased ON true
LEFT JOIN ${pair} p ON p.id = leased.pair_id
LEFT JOIN ${prompt} q ON q.id = p.prompt_id
LEFT JOIN ${response} ra ON ra.id = p.response_a_id
LEFT JOIN ${response} rb ON rb.id = p.response_b_id
LEFT JOIN ${rating_schema} s ON s.id = c.rating_schema_id AND leased.id IS NOT NULL
