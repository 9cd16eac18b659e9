"""A pair's discussion: curators talk over a disputed pair beside its ratings, and invite its raters into it.

Raters appear under pseudonyms ("Rater 1", "Rater 2", … in the order they first rated the pair), never by name,
to each other; curators see the username beside the pseudonym. A rater sees the thread only once invited, and
every message shown to a rater is masked as the pair itself is (model names, external ids). The thread is
internal: releases, agreement and consensus never read it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import IntegrityError, transaction
from django.db.models import Count

from annotation.accounts.models import User
from annotation.catalogue.models import Pair
from annotation.workqueue.models import Annotation, Assignment
from core.errors import ApplicationError
from curation.models import PairComment, PairThreadInvite

MAX_BODY = 4_000


def _pair(pair_id: int) -> Pair:
    pair = Pair.objects.filter(pk=pair_id).first()
    if pair is None:
        raise ApplicationError(f"pair {pair_id} does not exist", code="not_found", status_code=404)
    return pair


def pair_raters(*, pair_id: int) -> list[int]:
    """The user ids of the pair's raters with an account, in the order of their first rating (adjudications are a
    curator's decision, not a rating)."""
    seen: list[int] = []
    rows = (Annotation.objects.filter(pair_id=pair_id, annotator__isnull=False)
            .exclude(source=Annotation.Source.ADJUDICATION).order_by("id").values_list("annotator_id", flat=True))
    for user_id in rows:
        if user_id not in seen:
            seen.append(user_id)
    return seen


def _is_curator(user: User) -> bool:
    return bool(getattr(user, "is_curator", False))


def thread_allowed(*, pair_id: int, user: User) -> bool:
    """Curators always; a rater once invited into this pair's thread."""
    return _is_curator(user) or PairThreadInvite.objects.filter(pair_id=pair_id, rater=user).exists()


def _require(pair_id: int, user: User) -> Pair:
    pair = _pair(pair_id)
    if not thread_allowed(pair_id=pair_id, user=user):
        # As for a missing pair: a rater who was not invited learns nothing of the thread.
        raise ApplicationError(f"pair {pair_id} does not exist", code="not_found", status_code=404)
    return pair


def thread_post(*, pair_id: int, author: User, body: str) -> PairComment:
    """Add a message; 400 when empty or too long, 404 for anyone neither curator nor invited."""
    _require(pair_id, author)
    body = (body or "").strip()
    if not body:
        raise ApplicationError("write a message first", code="message_required")
    if len(body) > MAX_BODY:
        raise ApplicationError(f"keep a message under {MAX_BODY:,} characters (this one has {len(body):,})",
                               code="message_too_long")
    return PairComment.objects.create(pair_id=pair_id, author=author, body=body)


def thread_invite_raters(*, pair_id: int, curator: User) -> dict:
    """Invite every rater of the pair who has an account; says how many were invited now and before."""
    if not _is_curator(curator):
        raise ApplicationError("only curators can invite raters into a thread", code="forbidden", status_code=403)
    _pair(pair_id)
    raters = pair_raters(pair_id=pair_id)
    if not raters:
        raise ApplicationError("this pair has no rater with an account to invite (imported ratings have none)",
                               code="no_raters")
    before = set(PairThreadInvite.objects.filter(pair_id=pair_id).values_list("rater_id", flat=True))
    new = [r for r in raters if r not in before]
    for rater in new:
        try:
            with transaction.atomic():
                PairThreadInvite.objects.create(pair_id=pair_id, rater_id=rater, invited_by=curator)
        except IntegrityError:  # invited by another curator at the same moment
            pass
    return {"invited": len(new), "already_invited": len(raters) - len(new), "raters": len(raters)}


def thread_messages(*, pair_id: int, viewer: User, redact: Callable[[str], str] | None = None) -> dict:
    """The thread as ``viewer`` may see it: messages oldest first, each with its author's label (a pseudonym for
    raters; "Curator" and, for curators, the username), ``mine``, and the body (``redact``-ed for a rater)."""
    _require(pair_id, viewer)
    curator_view = _is_curator(viewer)
    raters = pair_raters(pair_id=pair_id)
    pseudonym = {user_id: f"Rater {i}" for i, user_id in enumerate(raters, start=1)}
    invited = dict(PairThreadInvite.objects.filter(pair_id=pair_id).values_list("rater_id", "rater__username"))
    messages = []
    for comment in PairComment.objects.filter(pair_id=pair_id).select_related("author"):
        author = comment.author
        if author.pk in pseudonym and not _is_curator(author):
            label = pseudonym[author.pk] + (f" · {author.get_username()}" if curator_view else "")
        else:
            label = "Curator" + (f" · {author.get_username()}" if curator_view else "")
        body = comment.body if curator_view or redact is None else redact(comment.body)
        messages.append({"id": comment.pk, "author": label, "mine": author.pk == viewer.pk, "body": body,
                         "created_at": comment.created_at})
    return {
        "messages": messages,
        "you": pseudonym.get(viewer.pk, "Curator"),
        "invited": [pseudonym[r] + (f" · {invited[r]}" if curator_view else "") for r in raters if r in invited],
        "raters": len(raters),
    }


def rater_discussions(*, rater: User, assignment_ids: list[int]) -> dict[int, int]:
    """Of the rater's assignments, those whose pair's discussion the rater was invited into: assignment id →
    messages in it (two queries)."""
    pair_of = dict(Assignment.objects.filter(pk__in=assignment_ids, annotator=rater).values_list("pk", "pair_id"))
    invited = set(PairThreadInvite.objects.filter(rater=rater, pair_id__in=set(pair_of.values()))
                  .values_list("pair_id", flat=True))
    counts = dict(PairComment.objects.filter(pair_id__in=invited).values("pair_id").annotate(n=Count("id"))
                  .values_list("pair_id", "n"))
    return {a: counts.get(p, 0) for a, p in pair_of.items() if p in invited}
