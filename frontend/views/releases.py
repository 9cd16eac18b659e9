"""Release pages: the list with its publish form, a leaderboard per release, and signed local downloads."""

from datetime import timedelta

from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.core import signing
from django.http import FileResponse, Http404, HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.views import View
from django.views.generic import TemplateView

from annotation.catalogue.models import Campaign
from annotation.jobs.models import Job
from core.errors import ApplicationError
from curation.models import JudgeEvaluation, Release, ReleaseFile
from curation.releases.archive import streaming_response, unsign_archive
from curation.releases.storage import release_storage, unsign_download
from curation.releases.training import FORMATS
from curation.selectors.heldout import heldout_leaderboard, heldout_public_split
from curation.selectors.releases import release_get, release_leaderboard, release_list
from curation.services.releases import MANIFEST, judge_evaluate, release_archive, release_download_links
from curation.services.training_exports import (
    JOB_KIND as TRAINING_JOB,
)
from curation.services.training_exports import (
    training_export_archive,
    training_export_start,
    training_exports,
)


class CuratorOnly(LoginRequiredMixin, UserPassesTestMixin):
    def test_func(self):
        return self.request.user.is_curator


class ReleaseListView(CuratorOnly, TemplateView):
    template_name = "frontend/releases/list.html"

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "releases": release_list(),
                "campaigns": Campaign.objects.order_by("slug").only("slug", "name", "kind")}


def _downloads(request, release: Release) -> dict:
    """The signed links of every file of a published release, media apart (the data files name them by path), and
    the same links made absolute for the page's download script."""
    links = release_download_links(release=release, include_media=True)
    media_paths = set(release.files.filter(kind=ReleaseFile.Kind.MEDIA).values_list("path", flat=True))
    whole = {**links["archive"], "url": request.build_absolute_uri(links["archive"]["url"])}
    return {"expires_in": links["expires_in"], "folder": f"{release.name}/{release.version}", "archive": whole,
            "files": [link for link in links["files"] if link["path"] not in media_paths],
            "media": [link for link in links["files"] if link["path"] in media_paths],
            "script": [{"path": link["path"], "url": request.build_absolute_uri(link["url"])} for link in links["files"]]}


class ReleaseLeaderboardView(CuratorOnly, TemplateView):
    """Every judge evaluated on the release, side by side per task, under the humans' own agreement."""

    template_name = "frontend/releases/leaderboard.html"

    def get_context_data(self, **kwargs):
        try:
            release = release_get(name=self.kwargs["name"], version=self.kwargs["version"])
        except ApplicationError as exc:
            raise Http404(exc.message) from exc
        board = release_leaderboard(release=release)
        rows = [
            {**judge, "cells": [judge["per_task"].get(task, {}).get("accuracy") for task in board["tasks"]]}
            for judge in board["judges"]
        ]
        humans = [board["human_agreement"].get(task, {}).get("agreement") for task in board["tasks"]]
        published = release.status == Release.Status.PUBLISHED
        message = (f"Published {release}: {release.pairs_count} pairs, {release.files_count} files. Download them below."
                   if published and self.request.GET.get("published") else "")
        return {**super().get_context_data(**kwargs), "release": release, "board": board, "rows": rows,
                "humans": humans, "formats": JudgeEvaluation.Format.choices, "published_message": message,
                "heldout": (release.summary or {}).get("heldout"),
                "heldout_rows": [{**r, "cells": [r["per_task"].get(task, {}) for task in board["tasks"]]}
                                 for r in heldout_leaderboard(release=release)],
                "downloads": _downloads(self.request, release) if published else None,
                "error": kwargs.get("error"), "submitted": kwargs.get("submitted", {})}

    def post(self, request, name: str, version: str):
        """Upload a judge's predictions from the page; errors are shown beside the form, nothing is stored."""
        upload = request.FILES.get("predictions")
        submitted = {"judge": request.POST.get("judge", ""), "format": request.POST.get("format", "")}
        try:
            release = release_get(name=name, version=version, published=True)
            if upload is None:
                raise ApplicationError("choose a predictions file", code="predictions_missing")
            no_tie = request.FILES.get("predictions_no_tie")
            judge_evaluate(release=release, judge_name=submitted["judge"], predictions=upload.read(),
                           format=submitted["format"], file_name=upload.name,
                           predictions_no_tie=None if no_tie is None else no_tie.read(),
                           no_tie_file_name="" if no_tie is None else no_tie.name, created_by=request.user)
        except ApplicationError as exc:
            context = self.get_context_data(error=exc.message, submitted=submitted)
            return self.render_to_response(context, status=exc.status_code)
        return HttpResponseRedirect(reverse("release-leaderboard", kwargs={"name": name, "version": version}))


class HeldoutResultsView(TemplateView):
    """The results teams chose to publish on a release's private split, open to anyone: the judge, the figures
    overall and per task with their intervals, and the date, never a pair, a label or a rater."""

    template_name = "frontend/releases/heldout.html"

    def get_context_data(self, **kwargs):
        try:
            release = release_get(name=self.kwargs["name"], version=self.kwargs["version"], published=True)
        except ApplicationError as exc:
            raise Http404(exc.message) from exc
        split = heldout_public_split(release=release)
        rows = heldout_leaderboard(release=release) if split else []
        tasks = list(split["per_task"]) if split else []
        return {**super().get_context_data(**kwargs), "release": release, "split": split, "tasks": tasks,
                "rows": [{**row, "cells": [row["per_task"].get(task, {}) for task in tasks]} for row in rows]}


class ReleaseDownloadView(View):
    """A signed, expiring link to one file of a published release on local disk (S3 links go to the bucket)."""

    def get(self, request, token: str):
        try:
            key = unsign_download(token)
        except (signing.BadSignature, KeyError, TypeError) as exc:
            raise Http404("this download link is invalid or has expired") from exc
        name, version, path = (key.split("/", 2) + ["", ""])[:3]
        release = Release.objects.filter(name=name, version=version, status=Release.Status.PUBLISHED).first()
        if release is None or release.storage != Release.Storage.LOCAL:
            raise Http404("no such published release")
        if path != MANIFEST and not ReleaseFile.objects.filter(release=release, path=path).exists():
            raise Http404("no such file in the release")
        local = release_storage(release.storage).local_path(key)
        if not local.is_file():
            raise Http404("the file is missing from storage")
        response = FileResponse(open(local, "rb"), as_attachment=True, filename=local.name)
        response["X-Content-Type-Options"] = "nosniff"
        return response


class ReleaseArchiveDownloadView(View):
    """A signed, expiring link to the whole release as one zip, streamed by Concord from its storage (local or S3)."""

    def get(self, request, token: str):
        try:
            name, version = unsign_archive(token)
        except (signing.BadSignature, KeyError, TypeError) as exc:
            raise Http404("this download link is invalid or has expired") from exc
        release = Release.objects.filter(name=name, version=version, status=Release.Status.PUBLISHED).first()
        if release is None:
            raise Http404("no such published release")
        whole = release_archive(release=release)
        return streaming_response(name=whole.name, sha256=whole.sha256, size=whole.size, chunks=whole.chunks)


class TrainingExportsView(CuratorOnly, TemplateView):
    """A release's training exports: start one (a background job with a live progress bar), download finished ones."""

    template_name = "frontend/releases/training.html"

    def get_context_data(self, **kwargs):
        try:
            release = release_get(name=self.kwargs["name"], version=self.kwargs["version"], published=True)
        except ApplicationError as exc:
            raise Http404(exc.message) from exc
        mine = Job.objects.filter(kind=TRAINING_JOB, params__name=release.name, params__version=release.version)
        recent = timezone.now() - timedelta(hours=1)
        return {**super().get_context_data(**kwargs), "release": release, "formats": FORMATS,
                "exports": training_exports(release=release), "on_s3": release.storage != Release.Storage.LOCAL,
                "jobs": mine.filter(status__in=(Job.Status.QUEUED, Job.Status.RUNNING)).order_by("created_at"),
                "failed": mine.filter(status=Job.Status.FAILED, finished_at__gte=recent).order_by("-finished_at")[:3],
                "error": kwargs.get("error"), "submitted": kwargs.get("submitted", {})}

    def post(self, request, name: str, version: str):
        submitted = {key: request.POST.get(key, "") for key in ("format", "ties", "min_agreement")}
        try:
            release = release_get(name=name, version=version, published=True)
            raw = submitted["min_agreement"].strip()
            try:
                min_agreement = float(raw) if raw else None
            except ValueError:
                raise ApplicationError(f"minimum agreement is a share between 0 and 1, not {raw!r}",
                                       code="invalid_export_options") from None
            training_export_start(release=release, format=submitted["format"], ties=submitted["ties"] or "drop",
                                  min_agreement=min_agreement, created_by=request.user)
        except ApplicationError as exc:
            if exc.status_code == 404:
                raise Http404(exc.message) from exc
            context = self.get_context_data(error=exc.message, submitted=submitted)
            return self.render_to_response(context, status=exc.status_code)
        return HttpResponseRedirect(reverse("release-training", kwargs={"name": name, "version": version}))


class TrainingExportArchiveView(CuratorOnly, View):
    """One finished training export as a zip, streamed."""

    def get(self, request, name: str, version: str, folder: str):
        try:
            whole = training_export_archive(release=release_get(name=name, version=version, published=True),
                                            folder=folder)
        except ApplicationError as exc:
            raise Http404(exc.message) from exc
        return streaming_response(name=whole.name, sha256="", size=None, chunks=whole.chunks)
