# One image for every Concord process: web (gunicorn), Celery worker, Celery beat, migrations.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production

WORKDIR /app

# Every dependency ships as a wheel (psycopg-binary carries libpq), so no compiler is needed.
COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .

# collectstatic needs settings but no secret worth keeping: these random values exist only during this step.
RUN DJANGO_SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(64))')" \
    CONCORD_RATER_ID_SECRET="$(python -c 'import secrets; print(secrets.token_urlsafe(64))')" \
    python manage.py collectstatic --noinput \
    && useradd --create-home --uid 10001 concord \
    && mkdir -p /app/var \
    && chown -R concord:concord /app/var

USER concord
EXPOSE 8000

# gthread keeps clients' connections alive; on two cores three processes of two threads each carried the most
# claim → submit cycles per second (interleaved against 8 × 1: docs/decisions/gunicorn-gthread-3x2.md).
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--worker-class", "gthread", "--workers", "3", \
     "--threads", "2", "--timeout", "120", "--access-logfile", "-"]
