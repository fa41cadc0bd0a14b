"""Reading the files a user hands Kessel, safely, with every failure as a ScenarioError.

Two entry points, and every file Kessel reads goes through one of them (issue #14):

- `read_text(path, what)`: a UTF-8 text file a user named (a scenario, map, countersheet,
  game export or orders file). It refuses what is not a regular file (a directory, a
  device such as /dev/zero, a FIFO, a socket), a file over `MAX_BYTES`, and text that is
  not UTF-8 (latin-1, UTF-16, binary, a NUL byte), each as a one-line ScenarioError.
- `parse_yaml(text, file)` / `read_yaml_file(path)`: one YAML document, parsed with
  limits so that no input can take more than a bounded time and memory: `MAX_BYTES` of
  text, nesting at most `MAX_DEPTH` deep, at most `MAX_ALIASES` aliases, and at most
  `MAX_NODES` nodes and `MAX_CHARS` characters of scalars *counted with every alias
  expanded*. Aliases are cheap to parse (an alias is the same Python object again), but
  anything that later walks the data as a tree -- `json.dumps` when the service stores a
  scenario, `repr` in an error message, validation of a list -- expands them: nine
  nested lists of nine aliases are 9**9 = 387 million strings ("billion laughs"). Counting
  the expanded size while composing refuses such a file at the alias that crosses the
  limit, before anything is built. libyaml (`CSafeLoader`) still scans and parses; only
  the composing of nodes, where the counting happens, is done here in Python (the
  shipped files parse about 8% slower than with libyaml's own composer, and 7x faster
  than with Python's parser).

The data has only JSON types (dict, list, str, int, float, bool, None), so a scenario
read from a file can be stored as JSON and loaded again: a date (`1944-01-24`) is read as
the string "1944-01-24" (the scenario schema reads dates from strings), `!!binary` and
`!!set` are refused. And, unlike PyYAML's SafeLoader:
- a number with a leading zero (`0535`) stays the string `"0535"` (YAML 1.1 would read
  it as the octal 349, or `0809` as a string: both silently wrong for a hex id);
- a key repeated in one mapping (two `"0304":` lines in `terrain:`) is an error, not a
  silent overwrite.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.error import Mark, MarkedYAMLError
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.reader import ReaderError

from scenarios.errors import ScenarioError

# --- limits ---------------------------------------------------------------------------------
# The largest shipped data file is 85 KB (scenarios/rules/wb95-kursk.yaml); the largest map
# 59 KB and 7,100 nodes (scenarios/maps/kursk-joint.yaml), nested 7 deep, with 87 aliases
# at most (the rules files). Each limit is far above what Kessel writes or ships, and low
# enough that the worst file within them parses in about a second.
MAX_BYTES = 8 * 1024 * 1024  # a file, or YAML text (100x the largest shipped file)
MAX_DEPTH = 64  # nested collections (shipped: 7)
MAX_NODES = 250_000  # nodes, every alias expanded (shipped: 7,300; a game export ~15,000)
MAX_ALIASES = 10_000  # alias uses (shipped: 87)
MAX_CHARS = 2 * MAX_BYTES  # characters of scalars, every alias expanded

_READ_CHUNK = 1 << 16
_MERGE = "tag:yaml.org,2002:merge"
_TIMESTAMP: Any = SafeConstructor.yaml_constructors["tag:yaml.org,2002:timestamp"]

# YAML 1.1 int, without the octal form and without "0"-prefixed decimals.
_INT = re.compile(
    r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0x[0-9a-fA-F_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""",
    re.X,
)

# Errors a constructor raises on a value it cannot convert (`!!int abc`, `!!bool x`, an
# impossible date, an int of 5,000 digits): reported with the node's line.
_VALUE_ERRORS = (ValueError, TypeError, KeyError, AttributeError, IndexError, OverflowError)


class YamlLimitError(MarkedYAMLError):
    """The text is well-formed YAML but goes over one of the limits above."""


# --- reading files --------------------------------------------------------------------------
def read_text(
    path: str | os.PathLike[str], what: str = "file", *, max_bytes: int = MAX_BYTES
) -> str:
    """The text of a UTF-8 file a user named (`what` names it in errors: "orders file").

    Raises ScenarioError(str(path), "(file)", problem), `str(e)` one line such as
    `game.yaml: (file): not UTF-8 text (byte 0xe9 on line 3); save the file as UTF-8`,
    when the file is missing or unreadable, is not a regular file (a directory, a device,
    a FIFO, a socket), is larger than `max_bytes` or is not UTF-8 text (a NUL byte counts
    as binary). A UTF-8 byte order mark is dropped. Never blocks on a FIFO or reads a
    device: the file is opened without blocking and checked before anything is read."""
    name = os.fspath(path)
    file = str(name)

    def refuse(problem: str) -> ScenarioError:
        return ScenarioError(file, "(file)", problem)

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(name, flags)
    except FileNotFoundError:
        raise refuse("file not found") from None
    except IsADirectoryError:
        raise refuse(f"is a directory; the {what} must be a file") from None
    except PermissionError:
        raise refuse("permission denied") from None
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the name
        raise refuse(f"cannot be opened: {_os_problem(e)}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise refuse(f"is a directory; the {what} must be a file")
        if not stat.S_ISREG(st.st_mode):
            raise refuse(
                f"is not a regular file (a device, FIFO or socket); the {what} must be one"
            )
        if st.st_size > max_bytes:
            raise refuse(_too_large(st.st_size, max_bytes, what))
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:  # the file may grow after fstat: never read past the limit
            chunk = os.read(fd, min(_READ_CHUNK, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise refuse(f"cannot be read: {_os_problem(e)}") from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise refuse(_too_large(size, max_bytes, what))
    return decode_text(b"".join(chunks), file, what)


def path_exists(path: str | os.PathLike[str]) -> bool:
    """Whether something is at `path` (a file, a directory, a device, a broken link), so
    that a name means that path rather than an id; `read_text` then says what is wrong
    with it. False for a name no file can have (a NUL byte, too long)."""
    try:
        os.lstat(path)
    except (OSError, ValueError):
        return False
    return True


def decode_text(data: bytes, file: str, what: str = "file") -> str:
    """`data` as UTF-8 text (a UTF-8 byte order mark dropped), or a ScenarioError naming
    the problem: UTF-16/32 (by their byte order marks), a NUL byte, invalid UTF-8."""
    for bom, enc in (
        (codecs.BOM_UTF32_LE, "UTF-32"),
        (codecs.BOM_UTF32_BE, "UTF-32"),
        (codecs.BOM_UTF16_LE, "UTF-16"),
        (codecs.BOM_UTF16_BE, "UTF-16"),
    ):
        if data.startswith(bom):
            raise ScenarioError(
                file, "(file)", f"the {what} is {enc} text; save it as UTF-8 and try again"
            )
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise ScenarioError(
            file, "(file)", f"not a text file (a NUL byte on line {line}): is it binary?"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        byte = data[e.start]
        raise ScenarioError(
            file,
            "(file)",
            f"not UTF-8 text (byte 0x{byte:02x} on line {line}); save the {what} as UTF-8",
        ) from None


def _too_large(size: int, limit: int, what: str) -> str:
    return f"the {what} is too large: {size:,} bytes (the limit is {limit:,})"


def _os_problem(e: BaseException) -> str:
    return str(getattr(e, "strerror", None) or e)


# --- parsing YAML ---------------------------------------------------------------------------
class _DataLoading:
    """What `DataLoader` adds to PyYAML's SafeLoader: limits, JSON types only,
    leading-zero numbers kept as strings, duplicate keys refused. Use `parse_yaml`, which
    turns every failure into a ScenarioError."""

    # provided by the parser (libyaml's or Python's) and the resolver of the loader
    get_event: Any
    check_event: Any
    resolve: Any
    flatten_mapping: Any
    construct_object: Any

    # -- composing: the limits --
    def get_single_node(self) -> Node | None:
        self.get_event()  # StreamStartEvent
        node: Node | None = None
        if not self.check_event(StreamEndEvent):
            self.get_event()  # DocumentStartEvent
            node = self._compose()
            self.get_event()  # DocumentEndEvent
        if not self.check_event(StreamEndEvent):
            event = self.get_event()
            raise ComposerError(
                "expected a single document in the stream",
                None if node is None else node.start_mark,
                "but found another document",
                event.start_mark,
            )
        self.get_event()  # StreamEndEvent
        return node

    def _compose(self) -> Node:
        """The document's node graph, composed without recursion; refuses the first node
        or alias that goes over a limit (at its line)."""
        get_event = self.get_event
        resolve = self.resolve
        max_nodes, max_chars, max_depth = MAX_NODES, MAX_CHARS, MAX_DEPTH
        # anchor -> (node, its expanded node count, its expanded characters); counts of -1
        # while the node is still open (an alias to it would make a recursive structure)
        anchors: dict[str, tuple[Node, int, int]] = {}
        # the open collections, outermost first: (node, anchor, nodes and characters
        # counted before it, its parent's pending mapping key)
        stack: list[tuple[Node, str | None, int, int, Node | None]] = []
        items: list[Any] = []  # the innermost open collection's value
        in_seq = False  # ... and whether it is a sequence
        key: Node | None = None  # a mapping's key waiting for its value
        nodes = chars = aliases = 0
        while True:
            event = get_event()
            kind = type(event)
            done: Node
            if kind is ScalarEvent:
                value = event.value
                tag = event.tag
                if tag is None or tag == "!":
                    tag = resolve(ScalarNode, value, event.implicit)
                done = ScalarNode(tag, value, event.start_mark, event.end_mark, style=event.style)
                nodes += 1
                chars += len(value)
                if nodes > max_nodes or chars > max_chars:
                    _over_limit(nodes, chars, event.start_mark)
                if event.anchor is not None:
                    _new_anchor(anchors, event.anchor, event.start_mark)
                    anchors[event.anchor] = (done, 1, len(value))
            elif kind is SequenceStartEvent or kind is MappingStartEvent:
                if len(stack) >= max_depth:
                    raise YamlLimitError(
                        None, None, f"nested more than {max_depth} levels deep", event.start_mark
                    )
                in_seq = kind is SequenceStartEvent
                node_class = SequenceNode if in_seq else MappingNode
                tag = event.tag
                if tag is None or tag == "!":
                    tag = resolve(node_class, None, event.implicit)
                items = []
                node = node_class(tag, items, event.start_mark, None, flow_style=event.flow_style)
                if event.anchor is not None:
                    _new_anchor(anchors, event.anchor, event.start_mark)
                    anchors[event.anchor] = (node, -1, -1)
                stack.append((node, event.anchor, nodes, chars, key))
                key = None
                nodes += 1
                if nodes > max_nodes:
                    _over_limit(nodes, chars, event.start_mark)
                continue
            elif kind is SequenceEndEvent or kind is MappingEndEvent:
                done, anchor, nodes_before, chars_before, key = stack.pop()
                done.end_mark = event.end_mark
                if anchor is not None:
                    anchors[anchor] = (done, nodes - nodes_before, chars - chars_before)
                if stack:
                    parent = stack[-1][0]
                    items = parent.value
                    in_seq = type(parent) is SequenceNode
            elif kind is AliasEvent:
                entry = anchors.get(event.anchor)
                if entry is None:
                    raise ComposerError(
                        None, None, f"found undefined alias {event.anchor!r}", event.start_mark
                    )
                done, n, c = entry
                if n < 0:
                    raise YamlLimitError(
                        None,
                        None,
                        f"alias *{event.anchor} refers to a collection that contains it "
                        "(a recursive structure)",
                        event.start_mark,
                    )
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise YamlLimitError(
                        None, None, f"more than {MAX_ALIASES:,} aliases", event.start_mark
                    )
                nodes += n
                chars += c
                if nodes > max_nodes or chars > max_chars:
                    _over_limit(nodes, chars, event.start_mark, alias=True)
            else:  # pragma: no cover - the parser sends no other event inside a document
                raise ComposerError(None, None, f"unexpected {kind.__name__}", event.start_mark)
            if not stack:
                return done
            if in_seq:
                items.append(done)
            elif key is None:
                key = done
            else:
                items.append((key, done))
                key = None

    # -- constructing: JSON types, duplicate keys, line numbers for bad values --
    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        """SafeConstructor's mapping (merge keys `<<` included) in one pass, refusing a
        key given twice (a key of the mapping itself may override a merged one)."""
        if not isinstance(node, MappingNode):
            raise ConstructorError(
                None, None, f"expected a mapping node, but found {node.id}", node.start_mark
            )
        own = len(node.value)
        for key_node, _ in node.value:
            if key_node.tag == _MERGE:
                own -= 1
        self.flatten_mapping(node)
        pairs = node.value
        first_own = len(pairs) - own  # merged pairs come first
        construct = self.construct_object
        mapping: dict[Any, Any] = {}
        own_keys: set[Any] | dict[Any, Any] = mapping if first_own == 0 else set()
        for i, (key_node, value_node) in enumerate(pairs):
            key = construct(key_node, deep=deep)
            try:
                again = i >= first_own and key in own_keys
            except TypeError:
                raise ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    "found unhashable key",
                    key_node.start_mark,
                ) from None
            if again:
                raise ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"found duplicate key {_short_key(key)}",
                    key_node.start_mark,
                )
            if first_own and i >= first_own and isinstance(own_keys, set):
                own_keys.add(key)
            mapping[key] = construct(value_node, deep=deep)
        return mapping

    def construct_json_timestamp(self, node: ScalarNode) -> str:
        """A date or time, as its ISO text (`1944-01-24`): JSON has no date type."""
        if not isinstance(node.value, str) or not SafeConstructor.timestamp_regexp.match(
            node.value
        ):
            raise ConstructorError(
                None, None, f"{_shown(node)} is not a date (YYYY-MM-DD)", node.start_mark
            )
        try:
            value = _TIMESTAMP(self, node)
        except _VALUE_ERRORS as e:
            raise ConstructorError(
                None, None, f"{_shown(node)} is not a date: {e}", node.start_mark
            ) from None
        return str(value.isoformat())

    def construct_refused(self, node: Node) -> Any:
        raise ConstructorError(
            None,
            None,
            f"{node.tag.rsplit(':', 1)[-1]} values (!!{node.tag.rsplit(':', 1)[-1]}) "
            "are not allowed in Kessel files",
            node.start_mark,
        )


def _shown(node: Node) -> str:
    """A scalar's text for an error message, cut short; a collection by its kind."""
    if not isinstance(node, ScalarNode):
        return "a list" if isinstance(node, SequenceNode) else "a mapping"
    text = repr(node.value[:80])
    return text if len(node.value) <= 80 else text[:-1] + "...'"


def _short_key(key: object) -> str:
    text = repr(key)
    return text if len(text) <= 80 else text[:77] + "..."


def _value_error_with_line(constructor: Any) -> Any:
    """A scalar constructor whose ValueError (`!!int abc`, `!!bool maybe`, an int of
    5,000 digits) becomes a ConstructorError at the scalar's line."""

    def construct(loader: Any, node: Node) -> Any:
        try:
            return constructor(loader, node)
        except _VALUE_ERRORS as e:
            kind = str(node.tag).rsplit(":", 1)[-1]
            detail = "" if isinstance(e, KeyError) else f" ({e})"
            raise ConstructorError(
                None, None, f"{_shown(node)} is not a valid {kind}{detail}", node.start_mark
            ) from None

    return construct


def _new_anchor(anchors: dict[str, tuple[Node, int, int]], anchor: str, mark: Mark) -> None:
    if anchor in anchors:
        raise ComposerError(
            f"found duplicate anchor {anchor!r}; first occurrence",
            anchors[anchor][0].start_mark,
            "second occurrence",
            mark,
        )


def _over_limit(nodes: int, chars: int, mark: Mark, alias: bool = False) -> None:
    what = (
        f"more than {MAX_NODES:,} values"
        if nodes > MAX_NODES
        else f"more than {MAX_CHARS:,} characters of text"
    )
    if alias:
        what = f"aliases expand it to {what} (an alias bomb?)"
    raise YamlLimitError(None, None, f"too large: {what}", mark)


def _set_up(loader: Any) -> None:
    resolvers = {
        ch: [(tag, rx) for tag, rx in lst if tag != "tag:yaml.org,2002:int"]
        for ch, lst in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    loader.yaml_implicit_resolvers = resolvers
    loader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
    loader.add_constructor("tag:yaml.org,2002:timestamp", _DataLoading.construct_json_timestamp)
    for kind in ("int", "float", "bool"):
        tag = f"tag:yaml.org,2002:{kind}"
        loader.add_constructor(tag, _value_error_with_line(SafeConstructor.yaml_constructors[tag]))
    for refused in ("binary", "set"):
        loader.add_constructor(f"tag:yaml.org,2002:{refused}", _DataLoading.construct_refused)
    assert not loader.yaml_path_resolvers  # _compose does not descend path resolvers


class PyDataLoader(_DataLoading, yaml.SafeLoader):
    """The loader on Python's own scanner and parser (when PyYAML lacks libyaml)."""


_set_up(PyDataLoader)

if getattr(yaml, "__with_libyaml__", False):

    class DataLoader(_DataLoading, yaml.CSafeLoader):
        """The loader on libyaml's scanner and parser (about 7x faster than Python's on
        the big maps); the composing, with the limits, is `_DataLoading`'s either way."""

    _set_up(DataLoader)
else:  # pragma: no cover - the locked PyYAML has libyaml
    DataLoader = PyDataLoader  # type: ignore[misc,assignment]


def _mark_key(err: yaml.YAMLError) -> str:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    if mark is None:
        return "(yaml)"
    return f"line {mark.line + 1}, column {mark.column + 1}"


def parse_yaml(text: str, file: str) -> Any:
    """Parse one YAML document within the limits above; every failure (a syntax error, a
    limit, a value that cannot be read) is a ScenarioError naming `file`, the line where
    there is one, and the problem. The data holds JSON types only."""
    return _parse_with(DataLoader, text, file)


def _parse_with(loader_class: Any, text: str, file: str) -> Any:
    if len(text) > MAX_BYTES:
        raise ScenarioError(file, "(file)", _too_large(len(text), MAX_BYTES, "YAML text"))
    loader: Any = None
    try:
        loader = loader_class(text)  # Python's reader checks the characters here
        return loader.get_single_data()
    except YamlLimitError as e:
        raise ScenarioError(file, _mark_key(e), f"YAML refused: {e.problem}") from None
    except ReaderError as e:  # a control character such as NUL
        raise ScenarioError(file, _position_key(text, e.position), _reader_problem(e)) from None
    except yaml.YAMLError as e:
        problem = getattr(e, "problem", None)
        if problem is None:  # pragma: no cover - every YAMLError of PyYAML 6 has one
            raise ScenarioError(file, "(yaml)", _reader_problem(e)) from None
        context = getattr(e, "context", None)
        what = "YAML error" if isinstance(e, ConstructorError) else "YAML syntax error"
        text_problem = f"{what}: {problem}"
        if context:
            text_problem += f" ({context})"
        raise ScenarioError(file, _mark_key(e), text_problem) from None
    except RecursionError:  # pragma: no cover - MAX_DEPTH stops it first
        raise ScenarioError(file, "(yaml)", "YAML error: nested too deeply") from None
    except _VALUE_ERRORS as e:  # pragma: no cover - the constructors add the line
        raise ScenarioError(file, "(yaml)", f"YAML error: {e}") from None
    finally:
        if loader is not None:
            loader.dispose()


def _position_key(text: str, position: int) -> str:
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    return f"line {line}, column {column}"


def _reader_problem(e: yaml.YAMLError) -> str:
    """One line for an error without a mark (str(e) of a ReaderError has two)."""
    char = getattr(e, "character", None)
    if isinstance(char, int):
        return f"YAML error: the character U+{char:04X} is not allowed in YAML text"
    first = str(e).splitlines()[0] if str(e) else type(e).__name__
    return f"YAML error: {first}"


def read_yaml_file(path: Path, what: str = "YAML file") -> Any:
    """Read (`read_text`) and parse (`parse_yaml`) a YAML file; every failure is a
    ScenarioError naming the file."""
    return parse_yaml(read_text(path, what), str(path))
