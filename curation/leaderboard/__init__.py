"""Ranking the compared models from human preferences."""
