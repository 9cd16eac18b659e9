-- The claim in one round trip (workqueue.services.assignments._lease_postgresql): pick this annotator's next
-- pair (skipping rows other claims hold), take a slot, write the lease and its event, and read what the display
-- needs of the pair. The orientation bit is assignment_rules.orientation_swapped in SQL. Every WHERE repeats the
-- claimable condition (models.PAIR_CLAIMABLE) verbatim, so the planner matches the partial indexes, and so a row
-- another claim updated is checked again once locked.
--
-- The pick follows pair_claim_idx's order without paying for the annotator's own backlog:
--  1. the first of the top ${head_size} entries of pair_claim_idx that they never had (usually the very first);
--  2. if the head holds nothing for them and is full (its last entry has priority `floor`), the first untouched
--     pair (pair_fresh_idx) of priority `floor` or above;
--  3. else the plain walk of pair_claim_idx.
-- OFFSET 0 keeps "never had it" a per-candidate probe of the (pair, annotator) unique index. The head's size is
-- written into the statement, not passed as a parameter: with a parameter in LIMIT and OFFSET the generic plan
-- of the prepared statement looked costlier, and PostgreSQL planned it anew on every claim.
-- The ${name}s are filled from the models' _meta on first use (workqueue.sql.statement).
WITH floor AS (
    SELECT p.priority FROM ${pair} p
    WHERE p.campaign_id = %(campaign)s AND p.is_gold = %(gold)s AND p.status = 'queued'
      AND (p.active_claims + p.annotations_done) < p.required_annotations
    ORDER BY p.priority DESC, (p.active_claims + p.annotations_done) DESC, p.id OFFSET ${head_last} LIMIT 1
), picked AS (
    SELECT COALESCE(
        (SELECT p.id
         FROM (SELECT p.id, p.priority, (p.active_claims + p.annotations_done) AS taken FROM ${pair} p
               WHERE p.campaign_id = %(campaign)s AND p.is_gold = %(gold)s AND p.status = 'queued'
                 AND (p.active_claims + p.annotations_done) < p.required_annotations
               ORDER BY p.priority DESC, (p.active_claims + p.annotations_done) DESC, p.id LIMIT ${head_size}) head
         JOIN ${pair} p ON p.id = head.id
         WHERE p.campaign_id = %(campaign)s AND p.is_gold = %(gold)s AND p.status = 'queued'
           AND (p.active_claims + p.annotations_done) < p.required_annotations
           AND NOT EXISTS (SELECT 1 FROM ${assignment} a WHERE a.pair_id = p.id AND a.annotator_id = %(annotator)s OFFSET 0)
         ORDER BY head.priority DESC, head.taken DESC, head.id
         LIMIT 1 FOR UPDATE OF p SKIP LOCKED),
        (SELECT p.id FROM ${pair} p
         WHERE p.campaign_id = %(campaign)s AND p.is_gold = %(gold)s AND p.status = 'queued'
           AND (p.active_claims + p.annotations_done) < p.required_annotations
           AND p.active_claims = 0 AND p.annotations_done = 0
           AND p.priority >= (SELECT priority FROM floor)
           AND NOT EXISTS (SELECT 1 FROM ${assignment} a WHERE a.pair_id = p.id AND a.annotator_id = %(annotator)s OFFSET 0)
         ORDER BY p.priority DESC, p.id
         LIMIT 1 FOR UPDATE OF p SKIP LOCKED),
        (SELECT p.id FROM ${pair} p
         WHERE p.campaign_id = %(campaign)s AND p.is_gold = %(gold)s AND p.status = 'queued'
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
    SELECT taken.id, %(campaign)s, %(annotator)s, 'active',
           get_byte(sha256(convert_to(%(seed_prefix)s || taken.id::text || %(seed_suffix)s, 'UTF8')), 0) & 1 = 1,
           %(now)s, %(expires)s, '', '{}'::jsonb
    FROM taken
    RETURNING id, pair_id, swapped
), recorded AS (
    INSERT INTO ${assignment_event} (assignment_id, campaign_id, annotator_id, kind, at, detail)
    SELECT id, %(campaign)s, %(annotator)s, 'claim', %(now)s, '{}'::jsonb FROM leased
)
SELECT leased.id, leased.pair_id, leased.swapped, ${display_pair_columns}
FROM leased
JOIN ${pair} p ON p.id = leased.pair_id
JOIN ${prompt} q ON q.id = p.prompt_id
JOIN ${response} ra ON ra.id = p.response_a_id
JOIN ${response} rb ON rb.id = p.response_b_id
JOIN ${rating_schema} s ON s.id = %(schema)s
