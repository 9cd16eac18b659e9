-- The claim's first read (workqueue.services.assignments._membership_postgresql): the campaign's row (by
-- ${campaign_by}), whether the annotator is a member, their open lease and its expiry, and whether any lease of the
-- campaign is due. The ORM queries of the portable branch, written by hand: compiling them cost more than running them.
SELECT ${campaign_columns}, m.${member_user} IS NOT NULL,
    (SELECT id FROM ${assignment} WHERE annotator_id = %(annotator)s AND campaign_id = c.id AND status = 'active' LIMIT 1),
    (SELECT expires_at FROM ${assignment} WHERE annotator_id = %(annotator)s AND campaign_id = c.id AND status = 'active' LIMIT 1),
    EXISTS (SELECT 1 FROM ${assignment} WHERE campaign_id = c.id AND status = 'active' AND expires_at <= %(now)s)
FROM ${campaign} c
LEFT JOIN ${members} m ON m.${member_campaign} = c.id AND m.${member_user} = %(annotator)s
WHERE c.${campaign_by} = %(campaign)s
