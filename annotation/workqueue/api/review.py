"""Review and correct over HTTP: your submitted work, one answer reopened, corrected or withdrawn, and the soft
rubric check; and the next pair shown ahead. Separate endpoints from the work queue's claim and submit, which
they never slow."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.catalogue.selectors import campaigns_for_user
from annotation.workqueue.api.assignments import DisplaySerializer
from annotation.workqueue.selectors import answers_check, assignment_for_annotator, my_work, review_display
from annotation.workqueue.services.preview import pair_preview_next
from annotation.workqueue.services.review import annotation_correct, annotation_withdraw


class ValuesSerializer(serializers.Serializer):
    values = serializers.DictField()


class MyWorkApi(APIView):
    """Your submitted and withdrawn pairs, newest first, with whether each can still be changed."""

    throttle_scope = "rater-read"

    @extend_schema_serializer(component_name="MyWorkItem")
    class OutputSerializer(serializers.Serializer):
        assignment = serializers.IntegerField()
        campaign = serializers.CharField()
        campaign_name = serializers.CharField()
        prompt = serializers.CharField(help_text="The start of the pair's prompt text, blind, as it was shown.")
        status = serializers.CharField()
        submitted_at = serializers.DateTimeField()
        answer = serializers.CharField()
        corrections = serializers.IntegerField()
        can_change = serializers.BooleanField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request):
        return Response(self.OutputSerializer(my_work(annotator=request.user), many=True).data)


class AssignmentReviewApi(APIView):
    """One of your submitted answers reopened: the pair as you saw it, your latest answer (as ``draft``), its
    revisions, whether it can still be changed and the soft warnings."""

    throttle_scope = "rater-read"

    @extend_schema_serializer(component_name="AssignmentReview")
    class OutputSerializer(DisplaySerializer):
        @extend_schema_serializer(component_name="AnnotationRevisionItem")
        class RevisionSerializer(serializers.Serializer):
            kind = serializers.CharField()
            at = serializers.DateTimeField()

        revisions = RevisionSerializer(many=True)
        submitted_at = serializers.DateTimeField(help_text="When you first submitted the answer.")
        can_change = serializers.BooleanField()
        decided = serializers.BooleanField()
        warnings = serializers.ListField(child=serializers.CharField())
        confirmed_warnings = serializers.ListField(
            child=serializers.CharField(),
            help_text="The warnings you were shown before submitting and confirmed (submit as is); empty if none.",
        )

    @extend_schema(responses=OutputSerializer)
    def get(self, request, assignment_id: int):
        assignment = assignment_for_annotator(assignment_id=assignment_id, annotator=request.user)
        return Response(self.OutputSerializer(review_display(assignment=assignment)).data)


class AnnotationCorrectApi(APIView):
    """Change your answer (left = "A", as shown) while the pair has not gone into consensus; 409 after."""

    throttle_scope = "rater-write"

    @extend_schema_serializer(component_name="AnnotationCorrectOutput")
    class OutputSerializer(serializers.Serializer):
        annotation = serializers.IntegerField(source="annotation.pk")
        warnings = serializers.ListField(child=serializers.CharField())

    @extend_schema(request=ValuesSerializer, responses=OutputSerializer)
    def post(self, request, assignment_id: int):
        data = ValuesSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        corrected = annotation_correct(assignment_id=assignment_id, annotator=request.user,
                                       values=data.validated_data["values"])
        return Response(self.OutputSerializer(corrected).data)


class AnnotationWithdrawApi(APIView):
    """Take your answer back while the pair has not gone into consensus (409 after); the pair needs another rater."""

    throttle_scope = "rater-write"

    @extend_schema_serializer(component_name="AnnotationWithdrawOutput")
    class OutputSerializer(serializers.Serializer):
        assignment = serializers.IntegerField(source="pk")
        status = serializers.CharField()

    @extend_schema(request=None, responses=OutputSerializer)
    def post(self, request, assignment_id: int):
        return Response(self.OutputSerializer(annotation_withdraw(assignment_id=assignment_id, annotator=request.user)).data)


class AnswersCheckApi(APIView):
    """The soft check of answers (as shown: left = "A") before they are sent, as the rating page asks it before a
    submit and the review page as the answer changes (annotation.workqueue.consistency): rubric scores against the
    overall preference, an invalid prompt with a strong preference. Warnings only; nothing is stored. 404 for
    anyone else's assignment."""

    throttle_scope = "rater-write"

    @extend_schema_serializer(component_name="AnswersCheckOutput")
    class OutputSerializer(serializers.Serializer):
        warnings = serializers.ListField(child=serializers.CharField(), help_text="Empty when the answers agree.")
        questions = serializers.ListField(
            child=serializers.CharField(),
            help_text="The question ids the warnings are about, the preference first: the ones to look at again.",
        )

    @extend_schema(request=ValuesSerializer, responses=OutputSerializer)
    def post(self, request, assignment_id: int):
        data = ValuesSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        found = answers_check(assignment_id=assignment_id, annotator=request.user, values=data.validated_data["values"])
        questions = list(dict.fromkeys(q for c in found for q in c.questions))
        return Response(self.OutputSerializer({"warnings": [c.message for c in found], "questions": questions}).data)


class NextPairPreviewApi(APIView):
    """The pair you will most likely get next in this campaign, blind, to load ahead (its media become fetchable);
    no lease is taken. 204 when nothing is left; 404 when you are not a member; the claim's 403 while it would refuse
    you (``profile_required``, ``quota_done``, ``qualification_required``, ``paused_recalibrate``)."""

    throttle_scope = "rater-read"

    @extend_schema_serializer(component_name="NextPairPreview")
    class OutputSerializer(DisplaySerializer):
        assignment = serializers.IntegerField(allow_null=True)
        expires_at = serializers.DateTimeField(allow_null=True)

    @extend_schema(responses={200: OutputSerializer, 204: None})
    def get(self, request, slug: str):
        campaign = get_object_or_404(campaigns_for_user(user=request.user).filter(members=request.user), slug=slug)
        display = pair_preview_next(campaign=campaign, annotator=request.user)
        if display is None:
            return Response(status=204)
        return Response(self.OutputSerializer(display).data)
