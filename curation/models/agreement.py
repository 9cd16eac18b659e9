from django.db import models


class AgreementReport(models.Model):
    """Agreement figures for a campaign or one slice of it, stored with the parameters that produced them."""

    campaign = models.ForeignKey("annotation.Campaign", on_delete=models.CASCADE, related_name="agreement_reports")
    slice_key = models.CharField(max_length=200, blank=True, help_text="'' for the whole campaign, else e.g. source=wise.")
    params = models.JSONField(default=dict, blank=True)
    report = models.JSONField()
    job = models.ForeignKey("annotation.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    computed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["campaign", "slice_key", "-computed_at"], name="agreement_trend_idx")]

    def __str__(self):
        return f"agreement {self.campaign_id} {self.slice_key or 'all'} @ {self.computed_at:%Y-%m-%d %H:%M}"
