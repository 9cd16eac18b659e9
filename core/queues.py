"""The Celery queues: every task names its queue from here, so routing lives in one place."""


class Queue:
    """The queue names; the worker of `make worker` and of docker-compose.yml listens on all of them."""

    DEFAULT = "celery"
    IMPORTS = "imports"
    JUDGES = "judges"
    ANALYTICS = "analytics"
    RELEASES = "releases"
