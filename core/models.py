"""What every app shares: the table of the database cache."""

from django.db import models


class CacheEntry(models.Model):
    """The table of Django's database cache, which serves the cache while Redis is unreachable (core.cache)."""

    cache_key = models.CharField(max_length=255, primary_key=True)
    value = models.TextField()
    expires = models.DateTimeField(db_index=True)

    def __str__(self):
        return self.cache_key
