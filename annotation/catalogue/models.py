"""The catalogue: campaigns, their rating schemas and sources, prompts, responses, pairs and media."""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import F, Q, Value
from django.db.models.lookups import LessThan


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
    """A declarative, versioned description of the questions a rater answers (see annotation.catalogue.schemas)."""

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
    lease_max_minutes = models.PositiveIntegerField(
        null=True, blank=True, help_text="How long a lease may last in all, counted from its claim, however often an "
        "active tab renews it; empty: 4 × lease_minutes.",
    )
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
    # Qualification (docs/qualification.md): with a calibration set, a new member rates a round of its pairs before
    # the real queue, and passes at the pass mark; during work the same mark, over the last gold answers, pauses.
    calibration_set = models.ForeignKey(
        "CalibrationSet", null=True, blank=True, on_delete=models.SET_NULL, related_name="campaigns",
        help_text="Pairs with expected answers a new member rates first; shared by campaigns of the same kind.",
    )
    qualification_pass_mark = models.FloatField(
        default=0.8, help_text="Share of calibration (and, during work, gold) pairs whose overall preference must match.")
    qualification_round_size = models.PositiveSmallIntegerField(default=10, help_text="Calibration pairs per round.")
    qualification_retry_hours = models.PositiveIntegerField(
        default=24, help_text="Hours a rater who failed a round waits before another (a curator may release sooner).")
    gold_pause_window = models.PositiveSmallIntegerField(default=30, help_text="Last gold answers the pause reads.")
    gold_pause_min = models.PositiveSmallIntegerField(
        default=15, help_text="Gold answers needed in the window before a rater can be paused.")
    sources = models.ManyToManyField(SourceDataset, related_name="campaigns", blank=True,
                                     help_text="Datasets this campaign's pairs were imported from.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(overlap__gte=1), name="campaign_overlap_positive"),
            models.CheckConstraint(condition=Q(max_overlap__gte=F("overlap")), name="campaign_max_overlap_ge_overlap"),
            models.CheckConstraint(condition=Q(gold_rate__gte=0) & Q(gold_rate__lte=1), name="campaign_gold_rate_share"),
            models.CheckConstraint(condition=Q(qualification_pass_mark__gt=0) & Q(qualification_pass_mark__lte=1),
                                   name="campaign_pass_mark_share"),
            models.CheckConstraint(condition=Q(qualification_round_size__gte=1), name="campaign_round_size_positive"),
            models.CheckConstraint(condition=Q(gold_pause_min__gte=1) & Q(gold_pause_min__lte=F("gold_pause_window")),
                                   name="campaign_gold_pause_within_window"),
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
    # Where the file was first imported from, as imported: what a pointer release names instead of the bytes.
    source_dataset = models.CharField(
        max_length=100, blank=True, default="", db_default="",
        help_text="The source dataset (SourceDataset name) of the import that first brought the file; empty if none.",
    )
    source_path = models.CharField(
        max_length=1024, blank=True, default="", db_default="",
        help_text="The file's path as that import named it (relative to its media root or zip).",
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
        help_text="Where a response names a model or its maker (annotation.catalogue.self_identification); "
                  "masked for annotators.",
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
            # A queued pair holding all its ratings could never be claimed, nor ever complete: it would be stranded.
            # Statuses follow the counts in annotation.catalogue.services.pair_status.
            models.CheckConstraint(
                condition=~Q(status="queued") | Q(annotations_done__lt=F("required_annotations")),
                name="pair_queued_misses_a_rating",
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "status", "-priority", "id"], name="pair_queue_idx"),
            # The pair browser's keyset by priority (read backwards for -priority): a page at any depth
            # starts at its cursor instead of sorting the whole campaign.
            models.Index(fields=["campaign", "priority", "id"], name="pair_browse_priority_idx"),
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
            # (pairs waiting for others) fills the top of pair_claim_idx: see annotation.workqueue.store.postgresql.claim_sql.
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


class CalibrationSet(models.Model):
    """Pairs with an expert's expected answer that qualify raters of one task kind; campaigns of that kind share it."""

    slug = models.SlugField(max_length=100, unique=True)
    kind = models.CharField(max_length=32, choices=TaskKind.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.slug


class CalibrationItem(models.Model):
    """One calibration pair: the answer a qualified rater is expected to give, and why."""

    calibration_set = models.ForeignKey(CalibrationSet, on_delete=models.CASCADE, related_name="items", db_index=False)
    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="calibration_items")
    expected = models.JSONField(
        help_text="Canonical answers by question id: the overall preference, and any rubric values that matter.")
    explanation = models.TextField(help_text="Why this answer: which response is better, which rubric decides.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["calibration_set", "pair"], name="calibration_item_once_per_set")]

    def __str__(self):
        return f"{self.calibration_set_id}: pair {self.pair_id}"
