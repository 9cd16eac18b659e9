"""The app's models, defined by sub-domain; importing them here registers them under the label ``annotation``."""

from annotation.accounts.models import AccountEvent, Invitation, LoginFailure, Role, User, UserSession
from annotation.catalogue.models import (
    CalibrationItem,
    CalibrationSet,
    Campaign,
    Media,
    Pair,
    Prompt,
    RatingSchema,
    Response,
    SourceDataset,
)
from annotation.jobs.models import Job
from annotation.workqueue.models import (
    Annotation,
    AnnotationRevision,
    Assignment,
    AssignmentEvent,
    CalibrationAnswer,
    CampaignQuestionnaire,
    CrowdEntry,
    CrowdEntryLink,
    CrowdParticipant,
    ProfileAnswer,
    QualificationRound,
    Questionnaire,
    RaterPause,
)

__all__ = [
    "AccountEvent", "Annotation", "AnnotationRevision", "Assignment", "AssignmentEvent", "CalibrationAnswer",
    "CalibrationItem", "CalibrationSet", "Campaign", "CampaignQuestionnaire", "CrowdEntry", "CrowdEntryLink",
    "CrowdParticipant", "Invitation", "Job", "LoginFailure", "Media", "Pair", "ProfileAnswer", "Prompt",
    "QualificationRound", "Questionnaire", "RaterPause", "RatingSchema", "Response", "Role", "SourceDataset", "User",
    "UserSession",
]
