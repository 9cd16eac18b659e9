"""Curation models, one module per sub-domain."""

from curation.models.agreement import AgreementReport
from curation.models.consensus import ConsensusRecord
from curation.models.judges import Judge, JudgeVerdict
from curation.models.releases import JudgeEvaluation, Release, ReleaseFile
from curation.models.threads import PairComment, PairThreadInvite

__all__ = ["AgreementReport", "ConsensusRecord", "Judge", "JudgeEvaluation", "JudgeVerdict", "PairComment", "PairThreadInvite",
           "Release", "ReleaseFile"]
