"""Curation models, one module per sub-domain."""

from curation.models.consensus import ConsensusRecord

__all__ = ["ConsensusRecord"]
