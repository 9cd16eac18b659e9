from django.contrib import admin

from annotation.catalogue import models


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

