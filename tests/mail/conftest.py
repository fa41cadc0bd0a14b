"""The mail tests' servers: a throw-away Dovecot and an aiosmtpd sink (mailservers.py)."""

from mailservers import dovecot, smtp_sink  # noqa: F401 (fixtures)
