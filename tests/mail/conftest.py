"""The mail tests' servers: a throw-away Dovecot and an aiosmtpd sink (mailservers.py)."""

from mailservers import dovecot, dovecot_tls, smtp_sink  # noqa: F401 (fixtures)
