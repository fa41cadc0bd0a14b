"""`kessel mail` settings: the environment, `kessel.toml` ([mail]) or `.env`.

Every key `k` of the `[mail]` table is also the environment variable `KESSEL_MAIL_<K>`
(e.g. `imap_host` and KESSEL_MAIL_IMAP_HOST); the environment wins, then kessel.toml, then
.env. docs/mail.md lists them with a worked example.
"""

from __future__ import annotations

import os
import ssl
import tomllib
from dataclasses import dataclass
from pathlib import Path

from bot.dotenv import read_dotenv

PREFIX = "KESSEL_MAIL_"
INBOUNDS = ("imap", "maildir", "smtp")
SECURITY = ("tls", "starttls", "none")


class ConfigError(Exception):
    """A setting that cannot work; the message says which and why."""


@dataclass(frozen=True)
class MailConfig:
    address: str  # the referee's own address; seat addresses are its plus-addresses
    db: str = "kessel.db"
    secret: str = ""  # the key of seat tokens; empty: one is made and kept in the db
    inbound: str = "imap"
    # IMAP (inbound = imap)
    imap_host: str = ""
    imap_port: int = 993
    imap_security: str = "tls"
    imap_user: str = ""
    imap_password: str = ""
    imap_folder: str = "INBOX"
    imap_idle: bool = True
    poll_seconds: float = 60.0
    # Maildir (inbound = maildir, and where the SMTP receiver keeps what it accepts)
    maildir: str = "kessel-mail"
    # the SMTP receiver (inbound = smtp)
    listen_host: str = "127.0.0.1"
    listen_port: int = 2525
    # sending
    smtp_host: str = ""
    smtp_port: int = 587
    smtp_security: str = "starttls"
    smtp_user: str = ""
    smtp_password: str = ""
    # the certificate authorities trusted for IMAP and SMTP TLS (a PEM file); empty: the
    # system's (a self-hosted server with its own CA names it here)
    ca_file: str = ""
    # Authentication-Results headers are believed only from these servers (authserv-id)
    trusted_authserv: tuple[str, ...] = ()
    max_message_bytes: int = 256 * 1024
    # refusals mailed to one address in an hour, at most: a forger's flood (or a mail loop
    # the headers do not show) cannot turn the referee into a source of backscatter
    refusals_per_hour: int = 10
    tick_seconds: float = 60.0
    name: str = "Kessel referee"

    def tls(self) -> ssl.SSLContext:
        """The TLS context of IMAP and SMTP: certificates checked, against `ca_file`'s
        authorities when given."""
        return ssl.create_default_context(cafile=self.ca_file or None)

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2]

    @property
    def local(self) -> str:
        return self.address.rpartition("@")[0]


def _toml(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8")).get("mail", {})
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML ({e})") from None
    out: dict[str, str] = {}
    for k, v in data.items():
        if isinstance(v, list):
            v = ",".join(str(x) for x in v)
        elif isinstance(v, bool):
            v = "true" if v else "false"
        out[PREFIX + str(k).upper()] = str(v)
    return out


def load_config(
    directory: str | Path = ".", env: dict[str, str] | None = None
) -> MailConfig | None:
    """The settings (environment, then kessel.toml, then .env); None when no referee
    address is configured. ConfigError names a setting that cannot work."""
    base = Path(directory)
    merged = (
        read_dotenv(base / ".env")
        | _toml(base / "kessel.toml")
        | dict(os.environ if env is None else env)
    )
    values = {
        k[len(PREFIX) :].lower(): v.strip() for k, v in merged.items() if k.startswith(PREFIX)
    }
    address = values.pop("address", "")
    if not address:
        return None
    if address.count("@") != 1 or "+" in address or not all(address.split("@")):
        raise ConfigError(
            f"mail address {address!r}: give the referee's own address, e.g. kessel@example.org "
            "(without a +tag: seat addresses add one)"
        )
    db = merged.get("KESSEL_DB", "") or values.pop("db", "") or "kessel.db"
    values.pop("db", None)
    known = {f for f in MailConfig.__dataclass_fields__ if f not in ("address", "db")}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ConfigError(
            "unknown mail settings: " + ", ".join(unknown) + " (docs/mail.md lists them)"
        )
    kw: dict[str, object] = {}
    for key, text in values.items():
        kw[key] = _typed(key, text)
    cfg = MailConfig(address=address.lower(), db=db, **kw)  # type: ignore[arg-type]
    _check(cfg)
    return cfg


def _typed(key: str, text: str) -> object:
    default = MailConfig.__dataclass_fields__[key].default
    if isinstance(default, bool):
        if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
            raise ConfigError(f"mail setting {key}: true or false, not {text!r}")
        return text.lower() in ("true", "1", "yes")
    if isinstance(default, int):
        if not text.isdigit() or not 0 < int(text) < 2**31:
            raise ConfigError(f"mail setting {key}: a whole number, not {text!r}")
        return int(text)
    if isinstance(default, float):
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not 0.01 <= value <= 86400:
            raise ConfigError(f"mail setting {key}: seconds from 0.01 to 86400, not {text!r}")
        return value
    if isinstance(default, tuple):
        return tuple(x.strip().lower() for x in text.split(",") if x.strip())
    return text


def _check(cfg: MailConfig) -> None:
    if cfg.inbound not in INBOUNDS:
        raise ConfigError(
            f"mail setting inbound: one of {', '.join(INBOUNDS)}, not {cfg.inbound!r}"
        )
    for key in ("imap_security", "smtp_security"):
        if getattr(cfg, key) not in SECURITY:
            raise ConfigError(f"mail setting {key}: one of {', '.join(SECURITY)}")
    if cfg.inbound == "imap" and not (cfg.imap_host and cfg.imap_user):
        raise ConfigError("reading mail by IMAP needs imap_host and imap_user (and imap_password)")
    if cfg.ca_file and not Path(cfg.ca_file).is_file():
        raise ConfigError(f"mail setting ca_file: there is no file {cfg.ca_file!r}")
    if not cfg.smtp_host:
        raise ConfigError("answering needs an SMTP server: set smtp_host (docs/mail.md)")
