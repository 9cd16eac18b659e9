from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from annotation import models


@admin.register(models.User)
class ConcordUserAdmin(UserAdmin):
    fieldsets = (*UserAdmin.fieldsets, ("Concord", {"fields": ("role",)}))
    list_display = ("username", "email", "role", "is_active")
    list_filter = ("role", "is_active")


@admin.register(models.RatingSchema)
class RatingSchemaAdmin(admin.ModelAdmin):
    list_display = ("slug", "version", "preset", "created_at")


@admin.register(models.Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ("slug", "kind", "status", "overlap", "created_at")
    list_filter = ("kind", "status")
    filter_horizontal = ("members",)


@admin.register(models.Media)
class MediaAdmin(admin.ModelAdmin):
    list_display = ("sha256", "kind", "mime_type", "size", "width", "height")
    list_filter = ("kind",)
    search_fields = ("sha256",)


@admin.register(models.Prompt)
class PromptAdmin(admin.ModelAdmin):
    list_display = ("external_id", "campaign", "source", "source_task")
    list_filter = ("campaign",)
    search_fields = ("external_id",)


@admin.register(models.Response)
class ResponseAdmin(admin.ModelAdmin):
    list_display = ("id", "model_name", "prompt")
    raw_id_fields = ("prompt",)
    search_fields = ("model_name",)


@admin.register(models.Pair)
class PairAdmin(admin.ModelAdmin):
    list_display = ("external_id", "campaign", "status", "priority", "annotations_done", "is_gold")
    list_filter = ("campaign", "status", "is_gold")
    raw_id_fields = ("prompt", "response_a", "response_b")
    search_fields = ("external_id",)


@admin.register(models.Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("pair", "annotator", "status", "claimed_at", "expires_at")
    list_filter = ("status",)
    raw_id_fields = ("pair", "annotator", "campaign")


@admin.register(models.AssignmentEvent)
class AssignmentEventAdmin(admin.ModelAdmin):
    """The work log is evidence (throughput, time on item): read it here, never edit it."""

    list_display = ("at", "kind", "annotator", "campaign", "assignment")
    list_filter = ("kind", "campaign")
    raw_id_fields = ("assignment", "annotator", "campaign")

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False


@admin.register(models.Annotation)
class AnnotationAdmin(admin.ModelAdmin):
    list_display = ("pair", "annotator", "rater_label", "source", "created_at")
    list_filter = ("source",)
    raw_id_fields = ("pair", "annotator", "assignment")
