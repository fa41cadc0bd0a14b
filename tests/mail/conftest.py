"""The mail tests' servers: a throw-away Dovecot and an aiosmtpd sink (mailservers.py).

A package, so that this conftest is `mail.conftest` and never shadows tests/conftest.py.
"""

from mail.mailservers import dovecot, dovecot_tls, smtp_sink  # noqa: F401 (fixtures)
