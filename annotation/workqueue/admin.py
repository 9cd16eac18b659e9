from django.contrib import admin

from annotation.workqueue import models


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


@admin.register(models.PairReport)
class PairReportAdmin(admin.ModelAdmin):
    list_display = ("created_at", "campaign", "pair", "reason", "status", "action")
    list_filter = ("status", "reason", "campaign")
    raw_id_fields = ("assignment", "pair", "campaign", "reporter", "answered_by")
