"""A pair's discussion over the API: curators under the console's pair, invited raters under their assignment."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.workqueue.selectors import assignment_for_annotator, blind_mask
from core.api.permissions import WORK_QUEUE_PERMISSIONS, IsCurator
from curation.services import threads


class MessageInputSerializer(serializers.Serializer):
    body = serializers.CharField(max_length=threads.MAX_BODY, trim_whitespace=True)


class MessageOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    author = serializers.CharField(help_text="A pseudonym (Rater 1, …) or Curator; curators also see usernames.")
    mine = serializers.BooleanField()
    body = serializers.CharField()
    created_at = serializers.DateTimeField()


class ThreadOutputSerializer(serializers.Serializer):
    messages = MessageOutputSerializer(many=True)
    you = serializers.CharField()
    invited = serializers.ListField(child=serializers.CharField())
    raters = serializers.IntegerField()


def _message(request) -> str:
    serializer = MessageInputSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data["body"]


class PairThreadApi(APIView):
    """The pair's discussion (curators): read it, or add a message."""

    permission_classes = [IsCurator]

    @extend_schema(responses=ThreadOutputSerializer)
    def get(self, request, pair_id: int):
        return Response(ThreadOutputSerializer(threads.thread_messages(pair_id=pair_id, viewer=request.user)).data)

    @extend_schema(request=MessageInputSerializer, responses={201: ThreadOutputSerializer})
    def post(self, request, pair_id: int):
        threads.thread_post(pair_id=pair_id, author=request.user, body=_message(request))
        thread = threads.thread_messages(pair_id=pair_id, viewer=request.user)
        return Response(ThreadOutputSerializer(thread).data, status=201)


class PairThreadInviteApi(APIView):
    """Invite the pair's raters (those with an account) into its discussion, under their pseudonyms."""

    permission_classes = [IsCurator]

    @extend_schema(request=None, responses=inline_serializer("ThreadInviteOutput", {
        "invited": serializers.IntegerField(), "already_invited": serializers.IntegerField(),
        "raters": serializers.IntegerField()}))
    def post(self, request, pair_id: int):
        return Response(threads.thread_invite_raters(pair_id=pair_id, curator=request.user))


class AssignmentThreadApi(APIView):
    """The discussion of a pair the rater rated, once a curator invited them: 404 otherwise. Messages are masked
    as the pair is; ``a_shown_on`` says on which side this rater saw the response the thread calls A."""

    permission_classes = WORK_QUEUE_PERMISSIONS

    def _thread(self, request, assignment) -> dict:
        thread = threads.thread_messages(pair_id=assignment.pair_id, viewer=request.user,
                                         redact=blind_mask(assignment).redact)
        return {**ThreadOutputSerializer(thread).data, "a_shown_on": "right" if assignment.swapped else "left"}

    @extend_schema(responses=ThreadOutputSerializer)
    def get(self, request, assignment_id: int):
        assignment = assignment_for_annotator(assignment_id=assignment_id, annotator=request.user)
        return Response(self._thread(request, assignment))

    @extend_schema(request=MessageInputSerializer, responses={201: ThreadOutputSerializer})
    def post(self, request, assignment_id: int):
        assignment = assignment_for_annotator(assignment_id=assignment_id, annotator=request.user)
        threads.thread_post(pair_id=assignment.pair_id, author=request.user, body=_message(request))
        return Response(self._thread(request, assignment), status=201)
