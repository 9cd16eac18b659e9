"""The OpenAPI schema tells every status code an operation can answer, with the one error shape they share.

A drf-spectacular post-processing hook: every operation documents 400 (a malformed or hostile request: the
middleware refuses NUL characters in any path or query), 403 (not signed in, or not allowed), 404, 429 (the
rate limit of the operation's route family, or HTTP Basic log-ins throttled; with ``Retry-After``) and 503 (the
database did not answer: ``core.db_faults``; with ``Retry-After``); one that takes a body also 413 (too large)
and 415 (another content type); one that changes something also 409 (a conflict with the current state).
Codes an operation documents itself are kept. An operation that starts a job documents 503 itself with
``JOB_NOT_QUEUED``. ``ConcordAutoSchema`` says in the request schema that a text field which refuses blank needs a
character that is not white space.
"""

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, extend_schema_serializer
from rest_framework import serializers

ERROR_COMPONENT = "Error"
ERROR_SCHEMA = {
    "type": "object",
    "description": "Every error: a stable code, a message for people, and sometimes details.",
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "extra": {"type": "object", "additionalProperties": {}},
    },
    "required": ["code", "message"],
}
DATABASE_UNAVAILABLE = ("The database did not answer (a restart, a failover): `database_unavailable`; nothing of the "
                        "request was saved. Retry-After says when to try again (core.db_faults).")
ALWAYS = {
    "400": "The request is malformed or carries text that is not accepted.",
    "403": "Not signed in, or not allowed.",
    "404": "No such object, or not yours.",
    "406": "The Accept header asks for a format this endpoint does not write.",
    "429": "Too many requests: `rate_limited` (over the limit of the operation's route family; `extra` names the "
           "family, the limit and the window) or `throttled` (too many failed HTTP Basic log-ins). Retry-After says "
           "when to try again.",
    "503": DATABASE_UNAVAILABLE,
}
RETRY_AFTER = {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds until a new try may succeed."}}
WITH_BODY = {
    "413": "The body is larger than the limit.",
    "415": "The body's content type is not one this endpoint reads.",
}
UNSAFE = {"409": "The request conflicts with the current state."}


@extend_schema_serializer(component_name=ERROR_COMPONENT)
class ErrorSerializer(serializers.Serializer):
    """The one error shape (the hook writes ERROR_SCHEMA over this component, so both stay one)."""

    code = serializers.CharField()
    message = serializers.CharField()
    extra = serializers.DictField(required=False)


# What every job-starting operation answers when the task queue does not take the job (JobNotQueued).
JOB_NOT_QUEUED = OpenApiResponse(
    ErrorSerializer,
    description="The task queue (broker) did not take the job: code `broker_unavailable`; the job is marked failed "
                "with the reason and `extra.job` names it. Start it again once the queue is back. Or "
                + DATABASE_UNAVAILABLE,
)


def error_responses(result, generator, request, public):
    """Post-processing hook: the shared error responses, added where an operation does not document its own."""
    result.setdefault("components", {}).setdefault("schemas", {})[ERROR_COMPONENT] = ERROR_SCHEMA
    reference = {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            codes = dict(ALWAYS)
            if "requestBody" in operation:
                codes.update(WITH_BODY)
            if method != "get":
                codes.update(UNSAFE)
            responses = operation.setdefault("responses", {})
            for code, description in codes.items():
                headers = {"headers": RETRY_AFTER} if code in ("429", "503") else {}
                responses.setdefault(code, {"content": {"application/json": {"schema": reference}},
                                            "description": description, **headers})
    return result


class ConcordAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, with the blank rule of request text fields stated.

    DRF strips a CharField's value and refuses it blank unless ``allow_blank``; drf-spectacular states that only
    with COMPONENT_SPLIT_REQUEST (which renames every request component), so it is stated here, for requests only:
    ``minLength: 1`` and, for a plain CharField (a slug, e-mail or URL field has its own pattern), a pattern that
    asks for one character that is not white space.
    """

    def _get_serializer_field_meta(self, field, direction):
        meta = super()._get_serializer_field_meta(field, direction)
        if (direction == "request" and isinstance(field, serializers.CharField) and not field.allow_blank
                and not field.read_only):
            meta.setdefault("minLength", 1)
            if type(field) is serializers.CharField and field.trim_whitespace:
                meta.setdefault("pattern", r"\S")
        return meta
