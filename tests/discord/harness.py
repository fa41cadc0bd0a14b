"""An in-process Discord for the bot's tests (no network; discord.py 2.7.* pinned).

Real INTERACTION_CREATE payloads go through discord.py's own gateway handler
(`ConnectionState.parse_interaction_create`), so the command tree, transformers,
autocomplete, DynamicItems and modals run as they would live. Everything the bot would
send is recorded instead: interaction responses and follow-ups through a webhook adapter
set in `discord.webhook.async_.async_context`, and REST calls (DMs, channel messages,
threads) through a stand-in for `HTTPClient.request`. This is the one file that touches
discord.py's private names (`_async_setup_hook`, `_connection`, `async_context`); a
discord.py upgrade breaks here and nowhere else.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord.webhook import async_ as webhook_async

from bot.discord.client import KesselBot
from bot.service import Referee

assert discord.__version__.startswith("2.7."), "the harness is written for discord.py 2.7"

APP_ID = 900000000000000001
BOT_ID = 900000000000000002
GUILD = 700000000000000001  # the server the tests' games live in
CHANNEL = 700000000000000010  # its game channel
NEXT_DOOR = 700000000000000011  # another channel of the same server
GUILD2 = 700000000000000002  # another server running Kessel
CHANNEL2 = 700000000000000020  # a channel of that server
MANAGE_GUILD = 1 << 5
ACK_BUDGET = 2.0  # seconds from the payload to the first response
_ids = itertools.count(800000000000000001)


def new_id() -> int:
    return next(_ids)


def user_payload(uid: int, name: str) -> dict[str, Any]:
    return {
        "id": str(uid),
        "username": name,
        "discriminator": "0",
        "global_name": name,
        "avatar": None,
    }


@dataclass
class Sent:
    """One thing the bot sent: where, and the JSON body Discord would get."""

    where: str  # "response" (interaction callback), "followup", "edit", "channel", "dm", "thread"
    target: str  # interaction id, channel id or user id
    body: dict[str, Any]
    files: list[str] = field(default_factory=list)
    message: dict[str, Any] | None = None
    at: float = field(default_factory=time.monotonic)
    data: list[bytes] = field(default_factory=list)  # the files' bytes (e.g. map PNGs)

    @property
    def content(self) -> str:
        """The message's text, followed by its embeds' text (title, description, fields,
        footer) line by line."""
        data = self.body.get("data", self.body)
        lines = [str(data.get("content") or "")] if data.get("content") else []
        for e in data.get("embeds") or []:
            lines += [str(e[k]) for k in ("title", "description") if e.get(k)]
            lines += [f"{f['name']}: {f['value']}" for f in e.get("fields") or []]
            if (e.get("footer") or {}).get("text"):
                lines.append(str(e["footer"]["text"]))
        return "\n".join(lines)

    def embeds(self) -> list[dict[str, Any]]:
        data = self.body.get("data", self.body)
        return list(data.get("embeds") or [])

    @property
    def ephemeral(self) -> bool:
        data = self.body.get("data", self.body)
        return bool(int(data.get("flags") or 0) & 64)

    @property
    def type(self) -> int | None:
        t = self.body.get("type")
        return int(t) if t is not None else None

    def buttons(self) -> list[dict[str, Any]]:
        data = self.body.get("data", self.body)
        return [c for row in data.get("components") or [] for c in row.get("components", [])]


class DiscordLimitError(AssertionError):
    """The bot sent something Discord would refuse (400 Bad Request)."""


def _check_components(rows: list[dict[str, Any]], where: str) -> None:
    if len(rows) > 5:
        raise DiscordLimitError(f"{where}: {len(rows)} action rows (at most 5)")
    for row in rows:
        inner = row.get("components") or ([row["component"]] if "component" in row else [])
        if row.get("type") == 1 and len(inner) > 5:
            raise DiscordLimitError(f"{where}: {len(inner)} components in a row (at most 5)")
        for c in inner:
            cid = c.get("custom_id")
            if cid is not None and not 1 <= len(str(cid)) <= 100:
                raise DiscordLimitError(f"{where}: custom_id of {len(str(cid))} characters")
            if c.get("type") == 2 and len(str(c.get("label") or "")) > 80:
                raise DiscordLimitError(f"{where}: button label over 80 characters")
            if c.get("type") == 3:
                opts = c.get("options") or []
                if not 1 <= len(opts) <= 25:
                    raise DiscordLimitError(f"{where}: select with {len(opts)} options")
                for o in opts:
                    if len(str(o.get("label"))) > 100 or len(str(o.get("value"))) > 100:
                        raise DiscordLimitError(f"{where}: select option over 100 characters")
            if c.get("type") == 4:
                if len(str(c.get("label") or "")) > 45:
                    raise DiscordLimitError(f"{where}: text input label over 45 characters")
                if int(c.get("max_length") or 0) > 4000:
                    raise DiscordLimitError(f"{where}: text input max_length over 4,000")


def _check_embeds(embeds: list[dict[str, Any]], where: str) -> None:
    if len(embeds) > 10:
        raise DiscordLimitError(f"{where}: {len(embeds)} embeds (at most 10)")
    total = 0
    for e in embeds:
        sizes = {
            "title": (len(str(e.get("title") or "")), 256),
            "description": (len(str(e.get("description") or "")), 4096),
            "footer": (len(str((e.get("footer") or {}).get("text") or "")), 2048),
            "author": (len(str((e.get("author") or {}).get("name") or "")), 256),
        }
        fields = e.get("fields") or []
        if len(fields) > 25:
            raise DiscordLimitError(f"{where}: {len(fields)} embed fields (at most 25)")
        for i, f in enumerate(fields):
            sizes[f"field {i} name"] = (len(str(f.get("name") or "")), 256)
            sizes[f"field {i} value"] = (len(str(f.get("value") or "")), 1024)
            if not f.get("name") or not f.get("value"):
                raise DiscordLimitError(f"{where}: an embed field with an empty name or value")
        for what, (n, most) in sizes.items():
            if n > most:
                raise DiscordLimitError(f"{where}: embed {what} of {n} characters (at most {most})")
            total += n
    if total > 6000:
        raise DiscordLimitError(f"{where}: embeds of {total} characters in all (at most 6,000)")


def check_limits(body: dict[str, Any], where: str) -> None:
    """Raise when a message, modal or autocomplete answer breaks one of Discord's limits."""
    kind = body.get("type")
    data = body.get("data", body) if kind is not None else body
    if not isinstance(data, dict):
        return
    if kind == 8:  # autocomplete
        choices = data.get("choices") or []
        if len(choices) > 25:
            raise DiscordLimitError(f"{where}: {len(choices)} autocomplete choices (at most 25)")
        for c in choices:
            if not 1 <= len(str(c["name"])) <= 100 or len(str(c["value"])) > 100:
                raise DiscordLimitError(f"{where}: autocomplete choice {c!r} over 100")
        return
    if kind == 9:  # modal
        if len(str(data.get("title") or "")) > 45:
            raise DiscordLimitError(f"{where}: modal title over 45 characters")
        if len(str(data.get("custom_id") or "")) > 100:
            raise DiscordLimitError(f"{where}: modal custom_id over 100 characters")
        _check_components(data.get("components") or [], where)
        return
    content = str(data.get("content") or "")
    if len(content) > 2000:
        raise DiscordLimitError(f"{where}: message of {len(content)} characters (at most 2,000)")
    _check_embeds(data.get("embeds") or [], where)
    _check_components(data.get("components") or [], where)


def _checked(violations: list[str], body: dict[str, Any], where: str) -> None:
    """`check_limits`, remembered: the bot may catch the error, the test still fails."""
    try:
        check_limits(body, where)
    except DiscordLimitError as e:
        violations.append(str(e))
        raise


def _message(channel: str, body: dict[str, Any], files: list[str]) -> dict[str, Any]:
    data = body.get("data", body)
    return {
        "id": str(new_id()),
        "channel_id": channel,
        "type": 0,
        "content": data.get("content") or "",
        "author": user_payload(BOT_ID, "Kessel") | {"bot": True},
        "attachments": [
            {
                "id": str(new_id()),
                "filename": f,
                "size": 1,
                "url": "https://x/" + f,
                "proxy_url": "https://x/" + f,
            }
            for f in files
        ],
        "embeds": data.get("embeds") or [],
        "mentions": [],
        "mention_roles": [],
        "mention_everyone": False,
        "pinned": False,
        "tts": False,
        "timestamp": "2026-01-01T00:00:00+00:00",
        "edited_timestamp": None,
        "flags": int(data.get("flags") or 0),
        "components": data.get("components") or [],
    }


def _body(payload: Any, multipart: Any) -> dict[str, Any]:
    if payload is not None:
        return dict(payload)
    for part in multipart or []:
        if part.get("name") == "payload_json":
            return dict(json.loads(part["value"]))
    return {}


def _filenames(files: Any) -> list[str]:
    return [f.filename for f in files or []]


def _file_bytes(files: Any) -> list[bytes]:
    out = []
    for f in files or []:
        f.reset()
        out.append(bytes(f.fp.read()))
        f.reset()
    return out


class Recorder(webhook_async.AsyncWebhookAdapter):
    """Interaction HTTP (responses, follow-ups, edits) recorded instead of sent."""

    def __init__(self, log: list[Sent], violations: list[str]) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.log = log
        self.violations = violations

    async def request(
        self,
        route: Any,
        session: Any,
        *,
        payload: Any = None,
        multipart: Any = None,
        files: Any = None,
        **kw: Any,
    ) -> Any:
        path = route.path
        body = _body(payload, multipart)
        names = _filenames(files)
        data = _file_bytes(files)
        target = str(route.webhook_token).removeprefix("token-")  # the interaction id
        _checked(self.violations, body, f"{route.method} {path}")
        if path.endswith("/callback"):
            msg = _message(str(CHANNEL), body, names) if body.get("type") == 4 else None
            self.log.append(Sent("response", target, body, names, msg, data=data))
            out: dict[str, Any] = {"interaction": {"id": target, "type": body.get("type")}}
            if msg is not None:
                out["resource"] = {"type": 4, "message": msg}
            return out
        if route.method == "POST":
            msg = _message(str(CHANNEL), body, names)
            self.log.append(Sent("followup", target, body, names, msg, data=data))
            return msg
        if route.method == "PATCH":
            msg = _message(str(CHANNEL), body, names)
            self.log.append(Sent("edit", target, body, names, msg, data=data))
            return msg
        return None


class FakeHTTP:
    """REST calls (DMs, channel messages, private threads) recorded; a user in `blocked`
    has DMs closed: sending to them raises 403 like Discord (50007); a channel or thread in
    `deleted` answers 404 (10003 Unknown Channel)."""

    def __init__(self, log: list[Sent], violations: list[str]) -> None:
        self.log = log
        self.violations = violations
        self.blocked: set[int] = set()
        self.dm_of: dict[int, int] = {}  # DM channel id -> user id
        self.threads: dict[int, int] = {}  # thread id -> parent channel id
        self.deleted: set[int] = set()  # channels and threads deleted: 404, 10003
        self.calls: list[tuple[str, str]] = []

    async def request(self, route: Any, *, files: Any = None, form: Any = None, **kw: Any) -> Any:
        method, path = route.method, route.path
        self.calls.append((method, path))
        params = route.__dict__
        if method == "POST" and path == "/users/@me/channels":
            user = int(kw["json"]["recipient_id"])
            cid = new_id()
            self.dm_of[cid] = user
            return {
                "id": str(cid),
                "type": 1,
                "recipients": [user_payload(user, f"user{user}")],
                "last_message_id": None,
            }
        if method == "POST" and params.get("channel_id"):
            cid = int(params["channel_id"])
            if cid in self.deleted or self.threads.get(cid) in self.deleted:
                raise discord.NotFound(
                    SimpleNamespace(status=404, reason="Not Found"),
                    {"code": 10003, "message": "Unknown Channel"},
                )
        if method == "POST" and path == "/channels/{channel_id}/messages":
            cid = int(params["channel_id"])
            body = _body(kw.get("json"), form)
            _checked(self.violations, body, f"{method} {path}")
            names = _filenames(files)
            data = _file_bytes(files)
            if cid in self.dm_of:
                user = self.dm_of[cid]
                if user in self.blocked:
                    raise discord.Forbidden(
                        SimpleNamespace(status=403, reason="Forbidden"),
                        {"code": 50007, "message": "Cannot send messages to this user"},
                    )
                msg = _message(str(cid), body, names)
                self.log.append(Sent("dm", str(user), body, names, msg, data=data))
            else:
                where = "thread" if cid in self.threads else "channel"
                msg = _message(str(cid), body, names)
                self.log.append(Sent(where, str(cid), body, names, msg, data=data))
            return msg
        if method == "POST" and path == "/channels/{channel_id}/threads":
            tid = new_id()
            self.threads[tid] = int(params["channel_id"])
            return {
                "id": str(tid),
                "type": 12,
                "guild_id": str(GUILD),
                "parent_id": params["channel_id"],
                "name": "t",
                "owner_id": str(BOT_ID),
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": 10080,
                    "archive_timestamp": "2026-01-01T00:00:00+00:00",
                    "locked": False,
                },
            }
        if method == "PUT" and "thread-members" in path:
            return None
        raise AssertionError(f"the bot made an unexpected request: {method} {path}")


@dataclass
class Person:
    """A Discord user. Every person is a member of every server the tests use (`GUILD`,
    `GUILD2`); `manage_guild` gives Manage Server in `GUILD`, `admin_of` in the servers
    listed (e.g. `GUILD2`: a moderator of another server)."""

    id: int
    name: str
    roles: tuple[int, ...] = ()
    manage_guild: bool = False
    admin_of: tuple[int, ...] = ()

    def manages(self, guild: int) -> bool:
        return guild in self.admin_of or (self.manage_guild and guild == GUILD)

    def member(self, guild: int = GUILD) -> dict[str, Any]:
        perms = MANAGE_GUILD if self.manages(guild) else 0
        return {
            "user": user_payload(self.id, self.name),
            "roles": [str(r) for r in self.roles],
            "permissions": str(perms),
            "joined_at": "2026-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "nick": None,
            "flags": 0,
        }


def _option(name: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        kind = 5
    elif isinstance(value, int):
        kind = 4
    else:
        kind = 3
    return {"type": kind, "name": name, "value": value}


class Harness:
    """One bot instance over a referee; `restart()` gives a fresh bot on the same db."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.sent: list[Sent] = []
        self.violations: list[str] = []  # Discord limits the bot broke (see check_limits)
        self.http = FakeHTTP(self.sent, self.violations)
        self.bot: KesselBot | None = None
        self.ref: Referee | None = None
        self._token = webhook_async.async_context.set(Recorder(self.sent, self.violations))

    async def start(self) -> KesselBot:
        self.ref = await Referee.open(self.db, opponents=None)
        bot = KesselBot(self.ref, tick=False)
        bot.http.request = self.http.request  # type: ignore[method-assign]
        await bot._async_setup_hook()
        await bot.setup_hook()
        state = bot._connection
        state.user = discord.ClientUser(
            state=state,
            data=user_payload(BOT_ID, "Kessel") | {"bot": True},  # type: ignore[arg-type]
        )
        state.application_id = APP_ID
        self.bot = bot
        return bot

    async def restart(self) -> KesselBot:
        await self.stop()
        return await self.start()

    async def stop(self) -> None:
        if self.ref is not None:
            await self.ref.close()
        self.bot = None
        self.ref = None

    def close(self) -> None:
        webhook_async.async_context.reset(self._token)

    # --- payloads ------------------------------------------------------------------
    def _base(
        self,
        person: Person,
        kind: int,
        data: dict[str, Any],
        *,
        dm: bool = False,
        channel: int = CHANNEL,
        guild: int = GUILD,
        message: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """An interaction payload from `person`: in `channel` of `guild`, or (`dm`) from
        a direct message with the bot."""
        iid = new_id()
        p: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(APP_ID),
            "type": kind,
            "token": f"token-{iid}",
            "version": 1,
            "data": data,
            "locale": "en-US",
            "app_permissions": "0",
            "entitlements": [],
            "authorizing_integration_owners": {},
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if dm:
            cid = new_id()
            p["channel_id"] = str(cid)
            p["channel"] = {
                "id": str(cid),
                "type": 1,
                "recipients": [user_payload(person.id, person.name)],
            }
            p["user"] = user_payload(person.id, person.name)
            p["context"] = 1
        else:
            p["guild_id"] = str(guild)
            p["channel_id"] = str(channel)
            p["channel"] = {
                "id": str(channel),
                "type": 0,
                "guild_id": str(guild),
                "name": "games",
                "position": 0,
                "permission_overwrites": [],
                "nsfw": False,
            }
            p["member"] = person.member(guild)
            p["guild_locale"] = "en-US"
            p["context"] = 0
        if message is not None:
            p["message"] = message
        return p

    async def dispatch(self, payload: dict[str, Any]) -> list[Sent]:
        """Feed one payload through discord.py and wait until the bot is done with it."""
        assert self.bot is not None
        before = len(self.sent)
        started = time.monotonic()
        known = asyncio.all_tasks()
        self.bot._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        for _ in range(100):
            pending = [
                t
                for t in asyncio.all_tasks() - known
                if not t.done() and t is not asyncio.current_task() and not _background(t)
            ]
            if not pending:
                break
            await asyncio.wait(pending, timeout=5)
        else:
            raise AssertionError(f"the bot did not finish: {pending}")
        new = self.sent[before:]
        assert not self.violations, f"Discord would refuse: {self.violations}"
        first = next((s for s in new if s.where == "response"), None)
        # Discord's 3 seconds to acknowledge, with a margin for a slow test machine
        assert first is None or first.at - started < ACK_BUDGET, "acknowledged too late"
        return new

    async def command(
        self,
        person: Person,
        path: str,
        /,
        *,
        dm: bool = False,
        channel: int = CHANNEL,
        guild: int = GUILD,
        **options: Any,
    ) -> list[Sent]:
        """`/game new scenario:...` as `command(p, "game new", scenario=...)`."""
        names = path.split()
        opts = [_option(k, v) for k, v in options.items() if v is not None]
        for sub in reversed(names[1:]):
            opts = [{"type": 1, "name": sub, "options": opts}]
        data = {"id": str(new_id()), "name": names[0], "type": 1, "options": opts}
        payload = self._base(person, 2, data, dm=dm, channel=channel, guild=guild)
        return await self.dispatch(payload)

    async def autocomplete(
        self,
        person: Person,
        path: str,
        focused: str,
        *,
        dm: bool = False,
        channel: int = CHANNEL,
        guild: int = GUILD,
        **options: Any,
    ) -> list[dict[str, Any]]:
        names = path.split()
        opts = []
        for k, v in options.items():
            o = _option(k, v)
            if k == focused:
                o["type"] = 3
                o["focused"] = True
            opts.append(o)
        for sub in reversed(names[1:]):
            opts = [{"type": 1, "name": sub, "options": opts}]
        data = {"id": str(new_id()), "name": names[0], "type": 1, "options": opts}
        sent = await self.dispatch(self._base(person, 4, data, dm=dm, channel=channel, guild=guild))
        assert sent and sent[-1].type == 8, sent
        return list(sent[-1].body["data"]["choices"])

    async def click(
        self,
        person: Person,
        sent: Sent,
        label: str,
        *,
        dm: bool = False,
        channel: int = CHANNEL,
        guild: int = GUILD,
    ) -> list[Sent]:
        """Click the button labelled `label` on a message the bot sent."""
        assert sent.message is not None
        button = next(b for b in sent.buttons() if b.get("label") == label)
        data = {"custom_id": button["custom_id"], "component_type": 2}
        payload = self._base(
            person, 3, data, dm=dm, channel=channel, guild=guild, message=sent.message
        )
        return await self.dispatch(payload)

    async def submit_modal(
        self,
        person: Person,
        modal: Sent,
        values: list[str],
        *,
        dm: bool = False,
        channel: int = CHANNEL,
        guild: int = GUILD,
    ) -> list[Sent]:
        """Fill in the text inputs of a modal the bot opened, in order."""
        data = modal.body["data"]
        it = iter(values)

        def fill(c: dict[str, Any]) -> dict[str, Any]:
            if c.get("type") == 4:
                return {"type": 4, "custom_id": c["custom_id"], "value": next(it)}
            if "components" in c:
                return {"type": c["type"], "components": [fill(x) for x in c["components"]]}
            if "component" in c:
                return {"type": c["type"], "component": fill(c["component"])}
            return c

        comps = [fill(c) for c in data["components"]]
        payload = self._base(
            person,
            5,
            {"custom_id": data["custom_id"], "components": comps},
            dm=dm,
            channel=channel,
            guild=guild,
        )
        return await self.dispatch(payload)


def bot_message(content: str, components: list[dict[str, Any]], where: str = "dm") -> Sent:
    """A message as if the bot had sent it (content and buttons), for `Harness.click`:
    a component built directly from its class, e.g. a decision button of a given game."""
    body = {"content": content, "components": [{"type": 1, "components": components}]}
    return Sent(where, "", body, message=_message(str(CHANNEL), body, []))


def _background(task: asyncio.Task[Any]) -> bool:
    """Tasks that live on after an interaction (view timeouts, the loop's own)."""
    coro = task.get_coro()
    return "timeout" in getattr(coro, "__qualname__", "").lower()


def texts(sent: list[Sent], where: str | None = None) -> str:
    return "\n".join(s.content for s in sent if where is None or s.where == where)


ALICE = Person(100000000000000001, "Alice")
BOB = Person(100000000000000002, "Bob")
CAROL = Person(100000000000000003, "Carol")
MOD = Person(100000000000000009, "Mo", manage_guild=True)


@pytest.fixture
async def h(tmp_path: Any) -> AsyncIterator[Harness]:
    """A bot over a fresh database file (import this fixture into a test module)."""
    harness = Harness(str(tmp_path / "kessel.db"))
    await harness.start()
    yield harness
    await harness.stop()
    assert not harness.violations, f"Discord would refuse: {harness.violations}"
    harness.close()
