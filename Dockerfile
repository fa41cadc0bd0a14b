# Kessel referee. Local play by default; the Discord bot once KESSEL_DISCORD_TOKEN is set.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY scenarios ./scenarios
COPY render ./render
COPY bot ./bot
RUN pip install --no-cache-dir .
ENTRYPOINT ["kessel"]
