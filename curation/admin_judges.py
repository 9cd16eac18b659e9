"""Admin pages for judges and their verdicts; settings are validated and secrets never shown."""

from django import forms
from django.contrib import admin

from core.errors import ApplicationError
from curation.judges import registry
from curation.judges.base import JudgeConfigError
from curation.models import Judge, JudgeVerdict
from curation.services.judges import judge_key_change_check


class JudgeAdminForm(forms.ModelForm):
    class Meta:
        model = Judge
        fields = ["name", "backend", "settings", "enabled"]
        help_texts = {
            "settings": "JSON. Secrets are never stored: name the environment variable (one matching "
            "CONCORD_JUDGE_API_KEY_ENV_PATTERN; only admins set it), e.g. "
            '{"base_url": "http://vllm:8000/v1", "model": "Qwen/Qwen3-VL-8B-Instruct", '
            '"api_key_env": "CONCORD_JUDGE_KEY_VLLM"}',
        }

    current_user = None

    def clean(self):
        cleaned = super().clean()
        backend, settings = cleaned.get("backend"), cleaned.get("settings")
        if backend == Judge.Backend.PYTHON and not getattr(self.current_user, "is_superuser", False):
            # A python judge runs code on the workers.
            self.add_error("backend", "only superusers may configure a python judge")
        if backend:
            try:
                registry.validate(backend, settings or {})
            except JudgeConfigError as exc:
                self.add_error("settings", str(exc))
            else:
                try:
                    judge_key_change_check(user=self.current_user, settings=settings or {},
                                           previous=self.instance.settings if self.instance.pk else None)
                except ApplicationError as exc:
                    self.add_error("settings", exc.message)
        return cleaned


@admin.register(Judge)
class JudgeAdmin(admin.ModelAdmin):
    form = JudgeAdminForm
    list_display = ("name", "backend", "enabled", "secret_variables", "created_at")
    list_filter = ("backend", "enabled")
    search_fields = ("name",)

    @admin.display(description="Secrets (environment variables)")
    def secret_variables(self, judge):
        status = registry.secret_status(judge.settings or {})
        return ", ".join(f"{v['variable']} ({'set' if v['present'] else 'missing'})" for v in status.values()) or "—"

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        form.current_user = request.user
        return form


@admin.register(JudgeVerdict)
class JudgeVerdictAdmin(admin.ModelAdmin):
    list_display = ("pair", "judge", "order", "verdict", "score", "latency_ms", "has_error", "created_at")
    list_filter = ("judge", "order", "verdict")
    raw_id_fields = ("pair",)
    search_fields = ("pair__external_id",)
    readonly_fields = [f.name for f in JudgeVerdict._meta.fields]

    @admin.display(boolean=True, description="Error")
    def has_error(self, verdict):
        return bool(verdict.error)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
