"""Consensus policies: pure functions that decide, per pair, kept with a chosen side or dropped with a reason.

Policies register themselves by name; a campaign names its policy in ``Campaign.consensus_policy`` and
its parameters in ``Campaign.consensus_params``. No Django import anywhere in this package.
"""

from curation.consensus import dawid_skene, mmrb2, voting  # noqa: F401  (importing registers the built-in policies)
from curation.consensus.base import (
    DISPUTE_REASONS,
    ConsensusPolicy,
    Decision,
    PairRatings,
    PolicyError,
    get_policy,
    policy_names,
    register,
)

__all__ = ["DISPUTE_REASONS", "ConsensusPolicy", "Decision", "PairRatings", "PolicyError", "get_policy", "policy_names",
           "register"]
