"""Reading YAML data files safely, with every failure as a ScenarioError.

The loader differs from PyYAML's SafeLoader in two ways that matter for hex ids and maps:
- a number with a leading zero (`0535`) stays the string `"0535"` (YAML 1.1 would read
  it as the octal 349, or `0809` as a string: both silently wrong for a hex id);
- a key repeated in one mapping (two `"0304":` lines in `terrain:`) is an error, not a
  silent overwrite.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode

from scenarios.errors import ScenarioError

# YAML 1.1 int, without the octal form and without "0"-prefixed decimals.
_INT = re.compile(
    r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0x[0-9a-fA-F_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""",
    re.X,
)


# libyaml's parser when PyYAML has it (about 10x faster on the big maps), else Python's.
_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class DataLoader(_Base):  # type: ignore[misc]
    """SafeLoader with leading-zero numbers kept as strings and duplicate keys refused."""

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            try:
                key = self.construct_object(key_node, deep=True)
                hash(key)
            except TypeError:
                continue  # let the base class report unhashable keys
            if key in seen:
                raise ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"found duplicate key {key!r}",
                    key_node.start_mark,
                )
            seen.add(key)
        out: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return out


def _remove_int_resolver() -> None:
    resolvers = {
        ch: [(tag, rx) for tag, rx in lst if tag != "tag:yaml.org,2002:int"]
        for ch, lst in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    DataLoader.yaml_implicit_resolvers = resolvers
    DataLoader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))


_remove_int_resolver()


def _mark_key(err: yaml.YAMLError) -> str:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    if mark is None:
        return "(yaml)"
    return f"line {mark.line + 1}, column {mark.column + 1}"


def parse_yaml(text: str, file: str) -> Any:
    """Parse one YAML document; syntax errors become ScenarioErrors naming the line."""
    try:
        return yaml.load(text, Loader=DataLoader)  # DataLoader is a SafeLoader
    except yaml.YAMLError as e:
        problem = getattr(e, "problem", None) or str(e)
        context = getattr(e, "context", None)
        what = "YAML error" if isinstance(e, ConstructorError) else "YAML syntax error"
        text_problem = f"{what}: {problem}"
        if context:
            text_problem += f" ({context})"
        raise ScenarioError(file, _mark_key(e), text_problem) from None
    except RecursionError:
        raise ScenarioError(file, "(yaml)", "YAML error: nested too deeply") from None
    except (ValueError, TypeError, OverflowError) as e:
        # e.g. a date that does not exist (2024-13-45) or a number that does not fit
        raise ScenarioError(file, "(yaml)", f"YAML error: {e}") from None


def read_yaml_file(path: Path) -> Any:
    """Read and parse a YAML file; a missing or unreadable file is a ScenarioError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(str(path), "(file)", "file not found") from None
    except IsADirectoryError:
        raise ScenarioError(str(path), "(file)", "is a directory, not a YAML file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(str(path), "(file)", f"cannot be read: {e}") from None
    return parse_yaml(text, str(path))
