"""Every URL pattern, walked as five people: roles hold everywhere, and no id in a URL reveals another user's data.

The walk iterates Django's resolver, so a new route is walked the moment it exists; a route without an
entry in EXPECTED fails the test until someone says who may use it. Path parameters are filled with
objects of campaign Y, held by annotator ``bob``; ``alice`` is an annotator of campaign X only, so
every id she is handed belongs to someone else. Each response to an annotator is also searched for
what annotators must never see: model names, judge output, another annotator's rating.

Unsafe requests run inside a transaction that is rolled back, so every request sees the same data.
"""

from __future__ import annotations

import io
import re

import pytest
from django.core.cache import cache
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from PIL import Image

from annotation.catalogue.services.media import media_store
from annotation.jobs.models import Job
from annotation.workqueue.models import Annotation, Assignment, PairReport
from annotation.workqueue.services.assignments import assignment_claim
from curation.models import Release
from tests.curation.console.world import make_world

pytestmark = pytest.mark.django_db

ROLES = ("anon", "alice", "bob", "curator", "admin")
UNSAFE = ("post", "put", "patch", "delete")


def allowed(anon, alice, bob, curator, admin) -> dict:
    return dict(zip(ROLES, (anon, alice, bob, curator, admin), strict=True))


CURATOR_PAGE = allowed(302, 403, 403, 200, 200)
CURATOR_API = allowed(403, 403, 403, 200, 200)
SIGNED_IN = allowed(403, 200, 200, 200, 200)


def curator_post(status: int) -> dict:
    return allowed(403, 403, 403, status, status)


# route → method → role → status. Curator POSTs are sent with an empty JSON body against a pair
# that is complete, has overlap 3 of at most 5 and is not gold.
EXPECTED: dict[str, dict[str, dict]] = {
    "": {"GET": allowed(302, 200, 200, 200, 200)},
    "login/": {m: allowed(200, 200, 200, 200, 200) for m in ("GET", "POST", "PUT")},
    "logout/": {"POST": allowed(302, 302, 302, 302, 302)},
    "media/<str:name>": {"GET": allowed(403, 404, 200, 200, 200)},
    # Renditions (issue 22): the same rule, against the full rendition of bob's image.
    "media/<str:name>/<str:variant>": {"GET": allowed(403, 404, 200, 200, 200)},
    "favicon.ico": {"GET": allowed(200, 200, 200, 200, 200)},
    "api/schema/": {"GET": SIGNED_IN},
    # The docs pages send a signed-out browser to sign in; ReDoc's script is a static file, served to anyone.
    "api/docs/": {"GET": allowed(302, 200, 200, 200, 200)},
    "api/redoc/": {"GET": allowed(302, 200, 200, 200, 200)},
    "api/redoc/redoc.standalone.js": {"GET": allowed(200, 200, 200, 200, 200)},
    "api/v1/campaigns/": {"GET": SIGNED_IN},
    "api/v1/jobs/<int:job_id>/": {"GET": CURATOR_API},
    "api/v1/jobs/<int:job_id>/cancel/": {"POST": curator_post(200)},
    # The work queue (issue 3), against bob's open lease in campaign Y.
    "api/v1/campaigns/<slug:slug>/claim/": {"POST": allowed(403, 403, 200, 403, 403)},
    "api/v1/assignments/<int:assignment_id>/": {"GET": allowed(403, 404, 200, 404, 404)},
    # The walk's empty body is refused before the id is looked at (it reveals nothing); with a valid
    # body only bob's own lease answers: see test_only_the_holder_can_draft_submit_or_skip_a_lease.
    "api/v1/assignments/<int:assignment_id>/draft/": {"PUT": allowed(403, 400, 400, 400, 400)},
    "api/v1/assignments/<int:assignment_id>/submit/": {"POST": allowed(403, 400, 400, 400, 400)},
    "api/v1/assignments/<int:assignment_id>/skip/": {"POST": allowed(403, 400, 400, 400, 400)},
    # No body: only bob, the holder, renews his lease (issue 31); anyone else is told it does not exist.
    "api/v1/assignments/<int:assignment_id>/renewal/": {"POST": allowed(403, 404, 200, 404, 404)},
    # Reports of broken pairs (issue 31): the walk's empty body is refused before the id is looked at; the queue and
    # the answers are the curators', against carol's report in campaign Y.
    "api/v1/assignments/<int:assignment_id>/report/": {"POST": allowed(403, 400, 400, 400, 400)},
    "api/v1/reports/": {"GET": CURATOR_API},
    "api/v1/reports/<int:report_id>/answer/": {"POST": curator_post(400)},
    "console/reports/": {"GET": CURATOR_PAGE},
    "console/reports/<int:report_id>/answer/": {"POST": allowed(302, 403, 403, 302, 302)},
    "api/v1/me/stats/": {"GET": SIGNED_IN},
    # Review and correct (issue 22): one's own submitted answers only; bob's lease is still open (409), an empty
    # body is refused before the id is looked at.
    "api/v1/me/work/": {"GET": SIGNED_IN},
    # The next pair shown ahead (issue 22): members only (bob, blind: the walk searches the body).
    "api/v1/campaigns/<slug:slug>/next-preview/": {"GET": allowed(403, 404, 200, 404, 404)},
    "api/v1/assignments/<int:assignment_id>/review/": {"GET": allowed(403, 404, 409, 404, 404)},
    "api/v1/assignments/<int:assignment_id>/correction/": {"POST": allowed(403, 400, 400, 400, 400)},
    "api/v1/assignments/<int:assignment_id>/withdrawal/": {"POST": allowed(403, 404, 409, 404, 404)},
    "api/v1/assignments/<int:assignment_id>/check/": {"POST": allowed(403, 400, 400, 400, 400)},
    "console/": {"GET": CURATOR_PAGE},
    "console/campaigns/<slug:slug>/": {"GET": CURATOR_PAGE},
    "console/campaigns/<slug:slug>/pairs/": {"GET": CURATOR_PAGE},
    "console/campaigns/<slug:slug>/pairs/bulk/": {"POST": allowed(302, 403, 403, 302, 302)},
    "console/campaigns/<slug:slug>/run/<slug:kind>/": {"POST": allowed(302, 403, 403, 302, 302)},
    "console/pairs/<int:pair_id>/": {"GET": CURATOR_PAGE},
    "console/pairs/<int:pair_id>/<slug:action>/": {"POST": allowed(302, 403, 403, 302, 302)},
    "console/dashboards/": {"GET": CURATOR_PAGE},
    "console/dashboards/<slug:figure>.csv": {"GET": CURATOR_PAGE},
    "console/annotators/<int:user_id>/": {"GET": CURATOR_PAGE},
    "api/v1/console/campaigns/<slug:slug>/funnel/": {"GET": CURATOR_API},
    "api/v1/console/campaigns/<slug:slug>/pairs/": {"GET": CURATOR_API},
    "api/v1/console/pairs/<int:pair_id>/": {"GET": CURATOR_API},
    "api/v1/console/pairs/<int:pair_id>/extend-overlap/": {"POST": curator_post(200)},
    "api/v1/console/pairs/<int:pair_id>/send-to-adjudication/": {"POST": curator_post(200)},
    "api/v1/console/pairs/<int:pair_id>/mark-gold/": {"POST": curator_post(400)},
    "api/v1/console/pairs/<int:pair_id>/unmark-gold/": {"POST": curator_post(409)},
    "api/v1/console/pairs/<int:pair_id>/exclude/": {"POST": curator_post(400)},
    "api/v1/console/pairs/<int:pair_id>/restore/": {"POST": curator_post(409)},
    "api/v1/console/dashboards/<slug:figure>/": {"GET": CURATOR_API},
    "api/v1/console/annotators/<int:user_id>/recent/": {"GET": CURATOR_API},
    # Model leaderboard (issue 20): curators read it.
    "console/leaderboard/": {"GET": CURATOR_PAGE},
    "console/campaigns/<slug:slug>/agreement/": {"GET": CURATOR_PAGE},
    "console/campaigns/<slug:slug>/agreement/<slug:section>.csv": {"GET": CURATOR_PAGE},
    # A board never fitted: the API answers 202 with its fit job and the CSV download 503 until the job has run
    # (the walk's transaction never commits, so the job is never sent).
    "console/leaderboard.csv": {"GET": allowed(302, 403, 403, 503, 503)},
    "api/v1/leaderboard/models/": {"GET": allowed(403, 403, 403, 202, 202)},
    "api/v1/leaderboard/models/csv/": {"GET": allowed(403, 403, 403, 202, 202)},
    # Imports (issue 2): curators upload.
    "imports/": {"GET": CURATOR_PAGE},
    "api/v1/imports/": {"POST": curator_post(415)},  # the walk sends JSON; uploads are multipart
    # An import's report and its errors (issue 32): curators read them.
    "imports/<int:job_id>/": {"GET": CURATOR_PAGE},
    "imports/<int:job_id>/errors.<str:fmt>": {"GET": CURATOR_PAGE},
    "api/v1/imports/<int:job_id>/errors/": {"GET": CURATOR_API},
    # Releases (issue 6), against a published release of campaign Y with no files.
    "releases/": {"GET": CURATOR_PAGE},
    "releases/<slug:name>/<str:version>/": {"GET": CURATOR_PAGE, "POST": allowed(302, 403, 403, 400, 400)},
    # A download link is a signed, expiring capability (like an S3 presigned URL); a forged one is 404 for all.
    "releases/download/<str:token>/": {"GET": allowed(404, 404, 404, 404, 404)},
    "releases/archive/<str:token>/": {"GET": allowed(404, 404, 404, 404, 404)},
    "api/v1/releases/": {"GET": CURATOR_API, "POST": curator_post(400)},
    "api/v1/releases/<slug:name>/<str:version>/": {"GET": CURATOR_API},
    "api/v1/releases/<slug:name>/<str:version>/verify/": {"POST": curator_post(202)},
    "api/v1/releases/<slug:name>/<str:version>/discard/": {"POST": curator_post(409)},
    "api/v1/releases/<slug:name>/<str:version>/download/": {"GET": CURATOR_API},
    # The walk's release has no files in storage: the archive is refused (409 release_files_missing), never a 500.
    "api/v1/releases/<slug:name>/<str:version>/archive/": {"GET": curator_post(409)},
    "api/v1/releases/<slug:name>/<str:version>/evaluations/": {"POST": curator_post(400)},
    "api/v1/releases/<slug:name>/<str:version>/leaderboard/": {"GET": CURATOR_API},
    # Training exports (issue 34): the walk's empty body names no format; its release has no export to download.
    "api/v1/releases/<slug:name>/<str:version>/training-exports/": {"GET": CURATOR_API, "POST": curator_post(400)},
    "api/v1/releases/<slug:name>/<str:version>/training-exports/<str:folder>/archive/": {"GET": curator_post(404)},
    # The held-out results page is public (issue 34): the walk's release has no split, which the page says.
    "releases/<slug:name>/<str:version>/heldout/": {"GET": allowed(200, 200, 200, 200, 200)},
    "releases/<slug:name>/<str:version>/training/": {"GET": CURATOR_PAGE, "POST": allowed(302, 403, 403, 400, 400)},
    "releases/<slug:name>/<str:version>/training/<str:folder>.zip": {"GET": allowed(302, 403, 403, 404, 404)},
    # A pair's discussion (issue 32): curators; a rater only once invited (nobody is, in the walk), and only under
    # an assignment of their own, so everyone else is told it does not exist.
    "api/v1/console/pairs/<int:pair_id>/thread/": {"GET": CURATOR_API, "POST": curator_post(400)},
    "api/v1/console/pairs/<int:pair_id>/thread/invite/": {"POST": curator_post(200)},
    "api/v1/assignments/<int:assignment_id>/thread/": {"GET": allowed(403, 404, 404, 404, 404),
                                                       "POST": allowed(403, 404, 400, 404, 404)},
    "work/assignments/<int:assignment_id>/thread/": {"POST": allowed(302, 404, 404, 404, 404)},
    # Held-out submissions (issue 34): a team's token, never an account, reaches them (401 without one, whoever is
    # signed in); curators issue the tokens and read the published results. Both the NAME@X.Y.Z and NAME/X.Y.Z forms.
    **{f"api/v1/releases/<slug:name>{sep}<str:version>/{route}": expected
       for sep in ("@", "/")
       for route, expected in (
           ("submissions/", {"GET": allowed(401, 401, 401, 401, 401), "POST": allowed(401, 401, 401, 401, 401)}),
           ("submissions/<int:submission_id>/publish/", {"POST": allowed(401, 401, 401, 401, 401)}),
           ("teams/", {"GET": CURATOR_API, "POST": curator_post(400)}),
           # The published results are public, as the page below is: the walk's release has no split (an empty list).
           ("heldout/", {"GET": allowed(200, 200, 200, 200, 200)}),
       )},
    # Judges and the pre-filter (issue 5), against judge-1 (a python judge with verdicts) and a finished run.
    "api/v1/judges/": {"GET": CURATOR_API},
    "api/v1/judges/create/": {"POST": curator_post(400)},
    "api/v1/judges/<slug:name>/": {"GET": CURATOR_API},
    # A python judge runs code on the workers: only an admin may change it, even with an empty body.
    "api/v1/judges/<slug:name>/update/": {"POST": allowed(403, 403, 403, 403, 200)},
    "api/v1/judges/<slug:name>/delete/": {"POST": curator_post(409)},  # it has verdicts: disable it instead
    "api/v1/prefilter/campaigns/<slug:slug>/start/": {"POST": curator_post(202)},
    "api/v1/prefilter/campaigns/<slug:slug>/rule/": {"GET": CURATOR_API},
    "api/v1/prefilter/campaigns/<slug:slug>/rule/set/": {"POST": curator_post(200)},  # {} is the default majority rule
    "api/v1/prefilter/runs/<int:job_id>/": {"GET": CURATOR_API},
    "api/v1/prefilter/runs/<int:job_id>/resume/": {"POST": curator_post(409)},  # a finished run is not resumed
    "api/v1/prefilter/runs/<int:job_id>/cancel/": {"POST": curator_post(200)},
    "api/v1/prefilter/pairs/<int:pair_id>/verdicts/": {"GET": CURATOR_API},
    "api/v1/prefilter/pairs/<int:pair_id>/restore/": {"POST": curator_post(409)},  # the pair is complete, not dropped
    # Agreement and consensus (issue 4): curators only.
    "api/v1/campaigns/<slug:slug>/agreement/jobs/": {"POST": curator_post(202)},
    "api/v1/campaigns/<slug:slug>/agreement/": {"GET": CURATOR_API},
    "api/v1/campaigns/<slug:slug>/agreement/history/": {"GET": CURATOR_API},
    "api/v1/consensus/policies/": {"GET": CURATOR_API},
    "api/v1/campaigns/<slug:slug>/consensus/jobs/": {"POST": curator_post(202)},
    "api/v1/campaigns/<slug:slug>/adjudication/": {"GET": CURATOR_API},
    "api/v1/pairs/<int:pair_id>/adjudicate/": {"POST": curator_post(400)},
    # Workspace (issue 3): members of campaign Y (bob) only, against bob's open lease.
    "work/": {"GET": allowed(302, 200, 200, 200, 200)},
    "work/me/": {"GET": allowed(302, 200, 200, 200, 200)},
    "work/campaigns/<slug:slug>/": {"GET": allowed(302, 404, 200, 404, 404)},
    # POST: the claimed page itself; GET: the next pair's page, prepared ahead without a lease (204 when none is left).
    "work/campaigns/<slug:slug>/next/": {"GET": allowed(302, 404, 200, 404, 404), "POST": allowed(302, 404, 200, 404, 404)},
    "work/assignments/<int:assignment_id>/": {"GET": allowed(302, 404, 200, 404, 404)},
    # Setup without /admin/ (issue 20): curators set up campaigns, members and judges; accounts of other roles and
    # role changes are for admins. Empty forms are refused with 400; an empty settings form saves nothing new.
    "console/campaigns/new/": {"GET": CURATOR_PAGE, "POST": allowed(302, 403, 403, 400, 400)},
    "console/campaigns/<slug:slug>/settings/": {"GET": CURATOR_PAGE, "POST": allowed(302, 403, 403, 302, 302)},
    "console/campaigns/<slug:slug>/members/": {"POST": allowed(302, 403, 403, 302, 302)},
    "console/preview/form/": {"POST": allowed(302, 403, 403, 200, 200)},
    "console/preview/markdown/": {"POST": allowed(302, 403, 403, 200, 200)},
    "console/people/": {"GET": CURATOR_PAGE, "POST": allowed(302, 403, 403, 400, 400)},
    # A new invitation link for bob (an annotator who uses his account): for admins only, shown once.
    "console/people/<int:user_id>/<slug:action>/": {"POST": allowed(302, 403, 403, 403, 200)},
    "console/judges/": {"GET": CURATOR_PAGE, "POST": allowed(302, 403, 403, 400, 400)},
    # Enabling judge-1 (a python judge) is refused to the curator with a message, done for the admin.
    "console/judges/<slug:name>/<slug:action>/": {"POST": allowed(302, 403, 403, 302, 302)},
    # An invitation link is a capability; a forged one is 404 for everyone.
    "invite/<str:token>/": {"GET": allowed(404, 404, 404, 404, 404), "POST": allowed(404, 404, 404, 404, 404)},
    "api/v1/campaigns/create/": {"POST": curator_post(400)},
    "api/v1/campaigns/<slug:slug>/update/": {"POST": curator_post(200)},
    "api/v1/campaigns/<slug:slug>/members/": {"POST": curator_post(200)},
    "api/v1/users/create/": {"POST": curator_post(400)},
    "api/v1/users/<str:username>/role/": {"POST": allowed(403, 403, 403, 403, 400)},
    "api/v1/users/<str:username>/invite/": {"POST": allowed(403, 403, 403, 403, 200)},  # bob uses his account
    "api/v1/users/<str:username>/active/": {"POST": curator_post(400)},  # an empty body: "active" is required
    "api/v1/invitations/accept/": {"POST": allowed(400, 400, 400, 400, 400)},
    "api/v1/judges/<slug:name>/test/": {"POST": curator_post(400)},
    "work/assignments/<int:assignment_id>/review/": {"GET": allowed(302, 404, 404, 404, 404)},  # not submitted yet
    # Rater profiles, hours, crowd entry (issue 33). Campaign Y asks no questionnaire: its member's form page sends
    # him to the queue; an empty answer body is refused before the campaign is looked up.
    "api/v1/campaigns/<slug:slug>/profile/": {"GET": allowed(403, 404, 200, 404, 404),
                                              "PUT": allowed(403, 400, 400, 400, 400)},
    "api/v1/campaigns/<slug:slug>/profiles/": {"GET": CURATOR_API},
    "api/v1/campaigns/<slug:slug>/hours/": {"GET": CURATOR_API},
    "api/v1/campaigns/<slug:slug>/crowd-links/": {"POST": curator_post(400)},
    "work/campaigns/<slug:slug>/profile/": {"GET": allowed(302, 404, 302, 404, 404),
                                            "POST": allowed(302, 404, 302, 404, 404)},
    # Anyone may follow an entry link; without the platform's ids it is refused, saying which are missing.
    "crowd/<str:token>/": {"GET": allowed(400, 400, 400, 400, 400)},
    "console/campaigns/<slug:slug>/profile/": {"GET": CURATOR_PAGE, "POST": allowed(302, 403, 403, 400, 400)},
    "console/campaigns/<slug:slug>/hours.csv": {"GET": CURATOR_PAGE},
    # Qualification (issue 33), in campaign Y, which has no calibration set: bob is admitted, nobody is paused, and
    # the round id names no round. A rater's round and answers are members' only; the set, the report, releases
    # and lifts are for curators.
    "api/v1/campaigns/<slug:slug>/qualification/": {"GET": allowed(403, 404, 200, 404, 404),
                                                     "POST": allowed(403, 404, 200, 404, 404)},
    "api/v1/calibration-rounds/<int:round_id>/answers/": {"POST": allowed(403, 400, 400, 400, 400)},  # item required
    "api/v1/calibration-rounds/<int:round_id>/release/": {"POST": curator_post(404)},
    "api/v1/campaigns/<slug:slug>/calibration-set/": {"GET": CURATOR_API, "POST": curator_post(400),
                                                       "PATCH": curator_post(200)},
    "api/v1/campaigns/<slug:slug>/qualification/report/": {"GET": CURATOR_API},
    "api/v1/campaigns/<slug:slug>/pauses/<str:username>/lift/": {"POST": curator_post(404)},  # bob is not paused
    "work/campaigns/<slug:slug>/calibration/": {"GET": allowed(302, 404, 200, 404, 404),
                                                "POST": allowed(302, 404, 302, 404, 404)},
    "console/campaigns/<slug:slug>/qualification/": {"GET": CURATOR_PAGE, "POST": allowed(302, 403, 403, 302, 302)},
}

# Django's admin site is generated from the registered models: every page is for staff only (the
# Concord admin), everyone else is sent to the admin log-in.
ADMIN_PREFIX = "admin/"


def walk(patterns, prefix=""):
    """(route, view) for every leaf pattern, routes joined as written (regex patterns keep their regex)."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def methods_of(view) -> list[str]:
    """The HTTP methods a view answers: its class's handlers, or GET for a plain function view."""
    view_class = getattr(view, "view_class", None) or getattr(view, "cls", None)
    if view_class is None:
        return ["GET"]
    names = getattr(view_class, "http_method_names", ())
    return [m.upper() for m in ("get", "post", "put", "patch", "delete") if m in names and hasattr(view_class, m)]


def fill(route: str, params: dict) -> str:
    """A concrete URL for ``route``, with every <converter:name> and (?P<name>...) filled from ``params``."""

    def converter(match):
        name = match.group(2)
        if name not in params:
            raise AssertionError(f"no value for path parameter {name!r} in {route!r}: add one to params() in this test")
        return str(params[name])

    def group(match):
        name, body = match.group(1), match.group(2)
        if name in params:
            return str(params[name])
        return body.split("|")[0] if re.fullmatch(r"[\w|]+", body) else "no-such-page/"

    url = re.sub(r"\(\?P<(\w+)>([^)]*)\)", group, route)
    url = re.sub(r"<(?:(\w+):)?(\w+)>", converter, url)
    return "/" + url.replace("^", "").replace("$", "")


@pytest.fixture
def scene():
    cache.clear()
    x, y = make_world("console-x"), make_world("console-y")
    png = io.BytesIO()
    Image.new("RGB", (4, 4), (10, 200, 30)).save(png, "PNG")
    media = media_store(data=png.getvalue(), name="secret-model-y-output.png")
    y.pairs["kept"].media.add(media)
    job = Job.objects.create(kind="import", campaign=y.campaign)
    lease = assignment_claim(campaign=y.campaign, annotator=y.bob)
    run = Job.objects.create(kind="prefilter", campaign=y.campaign, status=Job.Status.SUCCEEDED, finished_at=timezone.now())
    release = Release.objects.create(
        name="console-y-release", version="1.0.0", status=Release.Status.PUBLISHED, manifest_sha256="0" * 64,
        published_at=timezone.now(),
    )
    release.campaigns.add(y.campaign)
    report = PairReport.objects.create(
        assignment=Assignment.objects.get(pair=y.pairs["kept"], annotator=y.carol), pair=y.pairs["kept"],
        campaign=y.campaign, reporter=y.carol, reason="media_broken", note="report by console-y-carol",
        created_at=timezone.now(),
    )
    people = {"alice": x.alice, "bob": y.bob, "curator": x.curator, "admin": x.admin}
    params = {
        "slug": y.campaign.slug, "pair_id": y.pairs["kept"].pk, "job_id": job.pk, "user_id": y.bob.pk,
        "name": f"{media.sha256}.png", "figure": "annotators", "section": "annotators", "action": "restore", "kind": "prefilter",
        "object_id": y.pairs["kept"].pk, "id": y.bob.pk, "content_type_id": 1,
        "version": release.version, "token": "forged-download-token",
        "assignment_id": lease.pk, "username": y.bob.username, "fmt": "csv", "report_id": report.pk, "folder": "trl",
        "submission_id": 1, "round_id": 2_000_000_000,
    }
    # What an annotator must never see: every model name, judge output, a co-annotator's rationale;
    # alice additionally must not see anything of campaign Y.
    never = ["secret-model-", "better_response", "judge-1", "rationale by console-y-carol", "report by console-y-carol"]
    secrets = {"alice": never + ["Console Y", "Draw console-y-kept-prompt", "rationale by console-y-bob"], "bob": never}
    # A parameter name that means different things on different routes, by route prefix.
    by_prefix = {
        "releases/": {"name": release.name}, "api/v1/releases/": {"name": release.name},
        "api/v1/judges/": {"name": "judge-1"}, "api/v1/prefilter/runs/": {"job_id": run.pk},
        "console/judges/": {"name": "judge-1", "action": "enable"}, "console/people/": {"action": "invite"},
        "media/<str:name>/": {"name": media.sha256, "variant": "full.png"},
    }
    yield {"people": people, "params": params, "by_prefix": by_prefix, "secrets": secrets, "lease": lease}
    cache.clear()


def request(people, role, method, url):
    client = Client()
    if role != "anon":
        client.force_login(people[role])
    if method == "GET":
        return client.get(url)
    with transaction.atomic():
        response = getattr(client, method.lower())(url, data={}, content_type="application/json")
        transaction.set_rollback(True)
    return response


def test_every_route_has_an_expectation_and_honours_it_for_every_role(scene):
    failures, walked = [], 0
    routes = list(walk(get_resolver().url_patterns))
    unknown = [route for route, _ in routes if route not in EXPECTED and not route.startswith(ADMIN_PREFIX)]
    assert not unknown, f"routes without an expectation in EXPECTED (say who may use them): {unknown}"
    stale = set(EXPECTED) - {route for route, _ in routes}
    assert not stale, f"EXPECTED names routes that no longer exist: {sorted(stale)}"
    for route, view in routes:
        prefix = next((p for p in scene["by_prefix"] if route.startswith(p)), None)
        url = fill(route, {**scene["params"], **scene["by_prefix"].get(prefix, {})})
        for method in methods_of(view):
            for role in ROLES:
                response = request(scene["people"], role, method, url)
                walked += 1
                body = response.content.decode("utf-8", "replace") if not getattr(response, "streaming", False) else ""
                problem = check(route, method, role, response)
                if problem:
                    failures.append(f"{method} {url} as {role}: {problem}")
                for secret in scene["secrets"].get(role, []):
                    if secret in body or secret in response.get("Location", ""):
                        failures.append(f"{method} {url} as {role}: leaks {secret!r}")
    assert walked > 100
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("intruder", ["alice", "curator", "admin"])
def test_only_the_holder_can_draft_submit_or_skip_a_lease(scene, intruder):
    """With valid bodies, anyone but bob gets 404 on bob's lease (renewing it too), and the lease stays as it was."""
    lease = scene["lease"]
    expires_at = lease.expires_at
    client = Client()
    client.force_login(scene["people"][intruder])
    base = f"/api/v1/assignments/{lease.pk}/"
    answers = {"values": {"overall": 3}, "time_on_item_ms": 4000}
    responses = [
        client.get(base),
        client.put(base + "draft/", answers, content_type="application/json"),
        client.post(base + "submit/", answers, content_type="application/json", HTTP_IDEMPOTENCY_KEY=f"{intruder}-1"),
        client.post(base + "skip/", {"reason": "not mine"}, content_type="application/json"),
        client.post(base + "renewal/"),
    ]
    assert [r.status_code for r in responses] == [404, 404, 404, 404, 404]
    assert all("secret-model-" not in r.content.decode() for r in responses)
    lease.refresh_from_db()
    assert (lease.status, lease.draft, lease.draft_saved_at, lease.expires_at) == ("active", {}, None, expires_at)
    assert not Annotation.objects.filter(assignment=lease).exists()
    owner = Client()
    owner.force_login(scene["people"]["bob"])
    assert owner.put(base + "draft/", answers, content_type="application/json").status_code == 200


def check(route, method, role, response) -> str | None:
    status = response.status_code
    if route.startswith(ADMIN_PREFIX):
        if route == "admin/login/":
            return None if status == 200 or (role == "admin" and status == 302) else f"status {status}"
        if role == "admin":
            # 403: autocomplete without its query; 405: logout answers POST only.
            return None if status in (200, 302, 403, 404, 405) else f"status {status}, expected the staff admin to be served"
        location = response.get("Location", "")
        if status == 302 and (location.startswith("/admin/login/") or (route == "admin/logout/" and location == "/admin/")):
            return None
        return f"status {status} → {location!r}, expected a redirect to the admin log-in"
    expected = EXPECTED[route].get(method)
    if expected is None:
        return f"the view answers {method} but EXPECTED[{route!r}] does not say who may"
    if status != expected[role]:
        return f"status {status}, expected {expected[role]}"
    if status == 302 and role == "anon" and method == "GET" and not response["Location"].startswith("/login/"):
        return f"redirected to {response['Location']!r}, expected the log-in page"
    return None


def test_the_walk_fills_regex_and_typed_parameters():
    assert fill("console/pairs/<int:pair_id>/", {"pair_id": 7}) == "/console/pairs/7/"
    assert fill("admin/^(?P<app_label>auth|annotation)/$", {}) == "/admin/auth/"
    assert fill("admin/(?P<url>.*)$", {}) == "/admin/no-such-page/"
    with pytest.raises(AssertionError, match="no value for path parameter 'release_id'"):
        fill("releases/<int:release_id>/", {})
