"""SQL expressions the pair browser shows per row without reading whole content lists: the prompt's first text
and each response's first image, on PostgreSQL (jsonpath) and SQLite (json_each) alike, and the prompt search."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.postgres.search import SearchQuery, SearchVectorField
from django.db import connection
from django.db.models import CharField, F, Func, Q

if TYPE_CHECKING:
    from django.db.models import QuerySet

PROMPT_PREVIEW_CHARS = 200


class FirstBlockValue(Func):
    """``content``'s first block of one of ``types`` → that block's ``key`` as text (NULL when there is none)."""

    output_field = CharField()

    def __init__(self, content, *, types: tuple[str, ...], key: str, limit: int | None = None):
        self.types, self.key, self.limit = types, key, limit
        super().__init__(content)

    def as_postgresql(self, compiler, connection, **extra):
        condition = " || ".join(f'@.type == "{t}"' for t in self.types)
        sql, params = compiler.compile(self.source_expressions[0])
        value = f"(jsonb_path_query_first({sql}, '$[*] ? ({condition}).{self.key}') #>> '{{}}')"
        return (f"left({value}, {int(self.limit)})" if self.limit else value), params

    def as_sqlite(self, compiler, connection, **extra):
        types = ", ".join(f"'{t}'" for t in self.types)
        sql, params = compiler.compile(self.source_expressions[0])
        value = (f"(SELECT json_extract(value, '$.{self.key}') FROM json_each({sql}) "
                 f"WHERE json_extract(value, '$.type') IN ({types}) LIMIT 1)")
        return (f"substr({value}, 1, {int(self.limit)})" if self.limit else value), params


def prompt_preview(path: str = "prompt__content") -> FirstBlockValue:
    return FirstBlockValue(F(path), types=("text",), key="text", limit=PROMPT_PREVIEW_CHARS)


def first_media(path: str) -> FirstBlockValue:
    return FirstBlockValue(F(path), types=("image", "video"), key="media")


class PromptDocument(Func):
    """A prompt's stored search document: the column migration ``annotation/0009`` generates and indexes
    (PostgreSQL only; the ORM does not know the column). Its source is any column of the prompt, e.g.
    ``F("prompt__content")``, which names the prompt's table alias in the query."""

    output_field = SearchVectorField()

    def as_sql(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        alias = sql.rsplit(".", 1)[0]
        return f'{alias}."search_document"', params


def prompt_search(text: str, path: str = "prompt__content") -> Q:
    """Pairs whose prompt matches ``text``: all its words on PostgreSQL (web-search syntax: "quoted phrase",
    -excluded, or), a case-insensitive substring elsewhere."""
    if connection.vendor == "postgresql":
        return Q(prompt_document=SearchQuery(text, config="simple", search_type="websearch"))
    return Q(**{f"{path}__icontains": text})


def with_prompt_document(queryset: QuerySet, path: str = "prompt__content") -> QuerySet:
    """The queryset with the search document aliased (not selected) where ``prompt_search`` needs it."""
    if connection.vendor == "postgresql":
        return queryset.alias(prompt_document=PromptDocument(F(path)))
    return queryset
