# Kessel referee. Local play by default; the Discord bot once KESSEL_DISCORD_TOKEN is set:
#   docker build -t kessel .
#   docker run -d --name kessel -e KESSEL_DISCORD_TOKEN=... -v kessel-data:/data kessel
#   docker run --rm -e KESSEL_DISCORD_TOKEN=... -v kessel-data:/data kessel bot --sync global
# The games live in the SQLite file on the /data volume (KESSEL_DB), or in PostgreSQL:
# KESSEL_DB=postgresql://... (docs/deploy.md: a Compose file with two bot shards).
FROM python:3.11-slim
WORKDIR /app
# Exactly the locked versions, checked against their hashes (requirements-runtime.lock,
# refreshed with `make lock`); the project itself is built with the locked setuptools.
COPY requirements-runtime.lock ./
RUN pip install --no-cache-dir --disable-pip-version-check \
      --require-hashes --no-deps -r requirements-runtime.lock
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY scenarios ./scenarios
COPY render ./render
COPY bot ./bot
RUN pip install --no-cache-dir --disable-pip-version-check --no-deps --no-build-isolation .
ENV KESSEL_DB=/data/kessel.db PYTHONUNBUFFERED=1
VOLUME ["/data"]
ENTRYPOINT ["kessel"]
