"""What raters touch: campaigns, prompts, responses, pairs, media, rating schemas, work and ratings."""

import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.sessions.base_session import AbstractBaseSession
from django.db import models
from django.db.models import F, Q, Value
from django.db.models.lookups import LessThan


class Role(models.TextChoices):
    ANNOTATOR = "annotator", "Annotator"
    CURATOR = "curator", "Curator"
    ADMIN = "admin", "Admin"


class User(AbstractUser):
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.ANNOTATOR)

    @property
    def is_curator(self) -> bool:
        return self.role in (Role.CURATOR, Role.ADMIN) or self.is_superuser

    @property
    def is_admin_role(self) -> bool:
        return self.role == Role.ADMIN or self.is_superuser

class Invitation(models.Model):
    """A one-time link that lets a new account's person set their own password; only its token's hash is kept."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations")
    token_sha256 = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"invitation for {self.user_id} (until {self.expires_at:%Y-%m-%d %H:%M})"


class UserSession(AbstractBaseSession):
    """A session with its signed-in user's id in a column, so a request reads the two in one statement
    (``annotation.sessions``). Deleting the user deletes their sessions."""

    user = models.ForeignKey(User, null=True, blank=True, on_delete=models.CASCADE, related_name="+")

    @classmethod
    def get_session_store_class(cls):
        from annotation.sessions import SessionStore

        return SessionStore


class TaskKind(models.TextChoices):
    TEXT_TO_IMAGE = "text-to-image", "Text to image"
    IMAGE_EDITING = "image-editing", "Image editing"
    INTERLEAVED = "interleaved", "Interleaved text and images"
    REASONING = "reasoning", "Thinking with images"
    TEXT_TO_TEXT = "text-to-text", "Text to text"
    IMAGE_TO_TEXT = "image-to-text", "Image to text"
    VIDEO_TO_TEXT = "video-to-text", "Video to text"
    AUDIO_TO_TEXT = "audio-to-text", "Audio to text"
    TEXT_TO_VIDEO = "text-to-video", "Text to video"
    TEXT_TO_AUDIO = "text-to-audio", "Text to audio"
    TEXT_TO_3D = "text-to-3d", "Text to 3D"


class RatingSchema(models.Model):
    """A declarative, versioned description of the questions a rater answers (see annotation.schemas)."""

    slug = models.SlugField(max_length=64)
    version = models.PositiveIntegerField(default=1)
    preset = models.CharField(max_length=64, blank=True)
    definition = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["slug", "version"], name="rating_schema_slug_version")]

    def __str__(self):
        return f"{self.slug} v{self.version}"


def _orientation_seed() -> str:
    return secrets.token_hex(8)


class SourceDataset(models.Model):
    """A published dataset pairs were imported from, with the terms they came under and how to cite it."""

    name = models.SlugField(max_length=100, unique=True, help_text="Short id, e.g. mmrb2.")
    title = models.CharField(max_length=200)
    license = models.CharField(max_length=64, help_text="Hugging Face licence id, e.g. cc-by-nc-4.0; 'other' if unknown.")
    url = models.CharField(max_length=500, blank=True)
    citation = models.TextField(blank=True, help_text="BibTeX.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.name


class Campaign(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        ACTIVE = "active", "Active"
        PAUSED = "paused", "Paused"
        ARCHIVED = "archived", "Archived"

    slug = models.SlugField(max_length=100, unique=True)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=32, choices=TaskKind.choices)
    rating_schema = models.ForeignKey(RatingSchema, on_delete=models.PROTECT, related_name="campaigns")
    overlap = models.PositiveSmallIntegerField(default=3)
    max_overlap = models.PositiveSmallIntegerField(default=5)
    lease_minutes = models.PositiveIntegerField(default=30)
    gold_rate = models.FloatField(default=0.0)
    requires_prefilter = models.BooleanField(default=False)
    requires_full_playback = models.BooleanField(
        default=False, help_text="A submit is refused until each response's (or the prompt's) audio or video was played "
        "to the end (98 %, for players that stop short).",
    )
    prefilter_rule = models.JSONField(default=dict, blank=True)
    consensus_policy = models.CharField(max_length=64, blank=True)
    consensus_params = models.JSONField(default=dict, blank=True)
    instructions = models.TextField(blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    orientation_seed = models.CharField(
        max_length=32, default=_orientation_seed, help_text="Seeds the left/right order shown per pair and annotator."
    )
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="campaigns", blank=True)
    sources = models.ManyToManyField(SourceDataset, related_name="campaigns", blank=True,
                                     help_text="Datasets this campaign's pairs were imported from.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(overlap__gte=1), name="campaign_overlap_positive"),
            models.CheckConstraint(condition=Q(max_overlap__gte=F("overlap")), name="campaign_max_overlap_ge_overlap"),
            models.CheckConstraint(condition=Q(gold_rate__gte=0) & Q(gold_rate__lte=1), name="campaign_gold_rate_share"),
        ]

    def __str__(self):
        return self.slug


class Media(models.Model):
    """A stored file, addressed by the sha256 of its bytes; never named after its origin."""

    class Kind(models.TextChoices):
        IMAGE = "image", "Image"
        VIDEO = "video", "Video"
        AUDIO = "audio", "Audio"
        MODEL3D = "model3d", "3D model"

    sha256 = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    mime_type = models.CharField(max_length=100)
    size = models.PositiveBigIntegerField()
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    file = models.FileField(max_length=200)
    render_error = models.CharField(
        max_length=300, blank=True, default="", db_default="",
        help_text="Why no rendition could be made (annotators then get nothing).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "media"

    def __str__(self):
        return f"{self.kind} {self.sha256[:12]}"


class Prompt(models.Model):
    # no index of its own: prompt_campaign_external_id starts with it
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="prompts", db_index=False)
    external_id = models.CharField(max_length=300)
    source = models.CharField(max_length=100, blank=True, help_text="Source benchmark, e.g. oneigbench.")
    source_task = models.CharField(max_length=100, blank=True)
    content = models.JSONField(default=list, blank=True, help_text="Ordered content blocks.")
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "external_id"], name="prompt_campaign_external_id")]

    def __str__(self):
        return self.external_id


class Response(models.Model):
    # no index of its own: response_unique_content starts with it
    prompt = models.ForeignKey(Prompt, on_delete=models.CASCADE, related_name="responses", db_index=False)
    model_name = models.CharField(max_length=200, help_text="Visible to curators only.")
    content = models.JSONField(help_text="Ordered content blocks.")
    content_sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["prompt", "model_name", "content_sha256"], name="response_unique_content")
        ]

    def __str__(self):
        return f"{self.model_name} → {self.prompt_id}"


PAIR_SLOTS_TAKEN = F("active_claims") + F("annotations_done")
# Written exactly as the claim query writes it, so PostgreSQL matches the partial index predicate.
PAIR_CLAIMABLE = Q(status="queued") & Q(LessThan(PAIR_SLOTS_TAKEN, F("required_annotations")))


class Pair(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Awaiting pre-filter"
        DROPPED_EASY = "dropped_easy", "Dropped by pre-filter"
        QUEUED = "queued", "In the annotation queue"
        COMPLETE = "complete", "Fully annotated"
        ADJUDICATION = "adjudication", "Awaiting adjudication"
        EXCLUDED = "excluded", "Excluded by a curator"

    # no index of its own: pair_campaign_external_id and the queue indexes start with it
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="pairs", db_index=False)
    prompt = models.ForeignKey(Prompt, on_delete=models.CASCADE, related_name="pairs")
    response_a = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="+")
    response_b = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="+")
    external_id = models.CharField(max_length=300)
    criteria = models.JSONField(default=list, blank=True, help_text="Free-form criteria, as in Omni-Reward.")
    metadata = models.JSONField(
        default=dict, blank=True, help_text="Curator-only facts from the source release, e.g. MMRB2's chosen side."
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    status_reason = models.CharField(max_length=200, blank=True)
    priority = models.SmallIntegerField(default=0)
    required_annotations = models.PositiveSmallIntegerField(default=3)
    active_claims = models.PositiveSmallIntegerField(default=0)
    annotations_done = models.PositiveSmallIntegerField(default=0)
    is_gold = models.BooleanField(default=False)
    gold_answer = models.JSONField(null=True, blank=True)
    media = models.ManyToManyField(Media, related_name="pairs", blank=True, help_text="Every file the pair shows.")
    # With a database default too: bulk loaders and benchmarks insert pairs in SQL of their own.
    self_identification = models.JSONField(
        default=list, db_default=Value([], output_field=models.JSONField()), blank=True,
        help_text="Where a response names a model or its maker (annotation.self_identification); masked for annotators.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "external_id"], name="pair_campaign_external_id"),
            models.CheckConstraint(condition=~Q(response_a=F("response_b")), name="pair_distinct_responses"),
            models.CheckConstraint(
                condition=Q(active_claims__lte=F("required_annotations") - F("annotations_done"))
                | Q(active_claims=0),
                name="pair_claims_within_overlap",
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "status", "-priority", "id"], name="pair_queue_idx"),
            # The claim walks this index from the top: only pairs with an open slot are in it, ordered
            # by priority, then breadth-first (most slots taken first), so a claim reads a few entries
            # whatever the size of the pool.
            models.Index(
                F("campaign"),
                F("is_gold"),
                F("priority").desc(),
                PAIR_SLOTS_TAKEN.desc(),
                F("id"),
                condition=PAIR_CLAIMABLE,
                name="pair_claim_idx",
            ),
            # Pairs nobody has claimed or annotated yet, for the claim of an annotator whose own backlog
            # (pairs waiting for others) fills the top of pair_claim_idx: see assignments.claim_sql.
            models.Index(
                F("campaign"),
                F("is_gold"),
                F("priority").desc(),
                F("id"),
                condition=PAIR_CLAIMABLE & Q(active_claims=0, annotations_done=0),
                name="pair_fresh_idx",
            ),
        ]

    def __str__(self):
        return self.external_id


class Assignment(models.Model):
    """One annotator's lease on one pair; the orientation shown is fixed when it is claimed."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        SUBMITTED = "submitted", "Submitted"
        SKIPPED = "skipped", "Skipped"
        EXPIRED = "expired", "Expired"
        WITHDRAWN = "withdrawn", "Withdrawn by the annotator"

    # No index of its own (nor on the other foreign keys below marked so): a composite index starts with it, and
    # every claim and submission would maintain the single-column one for nothing.
    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    # Neither has a plain index: on the claim's lookups ("had this annotator this pair", "their open lease", "any
    # lease due in the campaign") one would be a second way in, reading every assignment of the annotator or of
    # the campaign, and a plan made while the table was small could keep it (see docs/assignment.md). Their
    # lookups are served by the indexes below, each bounded by its condition or its other column.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments", db_index=False
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    swapped = models.BooleanField(help_text="Response B was shown on the left.")
    claimed_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    skip_reason = models.CharField(max_length=500, blank=True)
    draft = models.JSONField(default=dict, blank=True)
    draft_saved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pair", "annotator"], name="assignment_once_per_annotator"),
            # One lease at a time per annotator and campaign: two racing claims from two tabs cannot both win.
            models.UniqueConstraint(
                fields=["annotator", "campaign"], condition=Q(status="active"), name="assignment_one_active_per_campaign"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "expires_at"], name="assignment_lease_idx"),
            models.Index(
                fields=["campaign", "expires_at"], condition=Q(status="active"), name="assignment_campaign_lease_idx"
            ),
            # An annotator's finished work (their statistics); the condition keeps the claim's lookups off it.
            models.Index(
                fields=["annotator", "finished_at"],
                condition=Q(status__in=["submitted", "skipped"]),
                name="assignment_annotator_done_idx",
            ),
        ]

    def __str__(self):
        return f"{self.annotator_id} on {self.pair_id} ({self.status})"


class Annotation(models.Model):
    """A rating, always stored in the canonical A/B orientation."""

    class Source(models.TextChoices):
        CONCORD = "concord", "Rated in Concord"
        IMPORTED = "imported", "Imported"
        ADJUDICATION = "adjudication", "Curator adjudication"

    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="annotations", db_index=False)
    assignment = models.OneToOneField(Assignment, null=True, blank=True, on_delete=models.SET_NULL)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="annotations"
    )
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.CONCORD)
    rater_label = models.CharField(max_length=100, blank=True, help_text="Pseudonymous rater of an imported rating.")
    values = models.JSONField(help_text="Answers keyed by question id, canonical orientation.")
    shown_swapped = models.BooleanField(null=True, blank=True)
    rationale = models.TextField(blank=True)
    time_on_item_ms = models.PositiveIntegerField(null=True, blank=True)
    media_played = models.JSONField(
        null=True, blank=True,
        help_text='Share of each medium heard or watched, canonical orientation, e.g. {"A": 1.0, "B": 0.8}; '
        "empty when the pair has no audio or video.",
    )
    gold_correct = models.BooleanField(
        null=True, blank=True, help_text="On a gold pair: whether the answer matched the expected one; else empty."
    )
    idempotency_key = models.CharField(max_length=100, null=True, blank=True, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["pair", "annotator"], condition=Q(annotator__isnull=False), name="annotation_once_per_annotator"
            ),
            models.UniqueConstraint(
                fields=["pair", "rater_label"], condition=~Q(rater_label=""), name="annotation_once_per_imported_rater"
            ),
        ]
        indexes = [models.Index(fields=["pair", "created_at"], name="annotation_pair_idx")]

    def __str__(self):
        return f"annotation {self.pk} on {self.pair_id}"


class AnnotationRevision(models.Model):
    """One version of an annotator's answer to a pair: the first submission, each correction, a withdrawal.

    The annotation holds the latest (agreement and consensus read it); revisions keep every earlier one, so a
    correction never loses what was first answered.
    """

    class Kind(models.TextChoices):
        SUBMITTED = "submitted", "Submitted"
        CORRECTED = "corrected", "Corrected"
        WITHDRAWN = "withdrawn", "Withdrawn"

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="revisions")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    values = models.JSONField(help_text="The answers of this version, canonical orientation; empty on a withdrawal.")
    rationale = models.TextField(blank=True)
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["assignment", "at"], name="annotation_revision_idx")]

    def __str__(self):
        return f"{self.kind} of assignment {self.assignment_id} at {self.at:%Y-%m-%d %H:%M:%S}"


class AssignmentEvent(models.Model):
    """One step in an assignment's life, timestamped, so throughput and time on item can be measured."""

    class Kind(models.TextChoices):
        CLAIM = "claim", "Claimed"
        DRAFT = "draft", "Draft saved"
        SUBMIT = "submit", "Submitted"
        SKIP = "skip", "Skipped"
        EXPIRE = "expire", "Lease expired"
        CORRECT = "correct", "Corrected"
        WITHDRAW = "withdraw", "Withdrawn"

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="events")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignment_events", db_index=False)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignment_events", db_index=False
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    at = models.DateTimeField()
    detail = models.JSONField(default=dict, blank=True, help_text="Skip reason, time on item, gold outcome.")

    class Meta:
        indexes = [
            models.Index(fields=["annotator", "kind", "at"], name="assignment_event_annotator_idx"),
            models.Index(fields=["campaign", "kind", "at"], name="assignment_event_campaign_idx"),
        ]

    def __str__(self):
        return f"{self.kind} of assignment {self.assignment_id} at {self.at:%Y-%m-%d %H:%M:%S}"


class Job(models.Model):
    """A background job (import, pre-filter, agreement, consensus, release) with its live progress."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    kind = models.CharField(max_length=32)
    campaign = models.ForeignKey(Campaign, null=True, blank=True, on_delete=models.CASCADE, related_name="jobs")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    params = models.JSONField(default=dict, blank=True)
    progress_done = models.PositiveBigIntegerField(default=0)
    progress_total = models.PositiveBigIntegerField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The dispatch: the Celery task that runs the job and its arguments, so the reaper can send it again.
    task_name = models.CharField(max_length=100, blank=True)
    task_args = models.JSONField(default=list, blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    dispatches = models.PositiveSmallIntegerField(default=0)
    dispatched_at = models.DateTimeField(null=True, blank=True)
    # The last sign of life from the process working on the job (start, progress, a new attempt).
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["campaign", "kind", "-created_at"], name="job_campaign_kind_idx"),
            models.Index(fields=["status"], name="job_unfinished_idx",
                         condition=models.Q(status__in=["queued", "running"])),
        ]

    def __str__(self):
        return f"{self.kind} job {self.pk} ({self.status})"


class CacheEntry(models.Model):
    """The table of Django's database cache, which serves the cache while Redis is unreachable (config.cache)."""

    cache_key = models.CharField(max_length=255, primary_key=True)
    value = models.TextField()
    expires = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "concord_cache"

    def __str__(self):
        return self.cache_key
