"""Writes tests/corpus/yaml/, the hostile files of tests/test_hostile_files.py (issue #14).

The files are committed; run `python tests/corpus/make_yaml.py` to write them again after
changing this script."""

from __future__ import annotations

import codecs
from pathlib import Path

OUT = Path(__file__).parent / "yaml"
files: dict[str, bytes | str] = {}  # name -> content

SCEN = """\
id: hostile
system: wb95
game: korsun
initiative: soviet
turns: 5
map: {{cols: [1, 10], rows: [1, 8], default: clear}}
sides:
  soviet: {{nation: soviet}}
  german: {{nation: german}}
units:
  - {{id: {a}, side: soviet, type: inf, sp: 4, mp: 4, hex: "0303"}}
  - {{id: g-1, side: german, type: inf, sp: 4, mp: 4, hex: "0606"}}
"""


def scen(a: str = "s-1", extra: str = "") -> str:
    return SCEN.format(a=a) + extra


def laughs(indent: str, levels: int = 9, width: int = 9, name: str = "a") -> str:
    lines = [f"{indent}l0: &{name}0 [" + ", ".join(['"lol"'] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"{indent}l{i}: &{name}{i} [" + ", ".join([f"*{name}{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def export(scenario: str, extra: str = "", orders: str = "orders: ''\n") -> str:
    return f"kessel: game-export\nscenario: {scenario}\nseed: 7\ndice: []\n{extra}{orders}"


# --- alias bombs ----------------------------------------------------------------------------
files["bomb-lists.yaml"] = "laughs:\n" + laughs("  ")
files["bomb-maps.yaml"] = "a0: &m0 {x: lol, y: lol, z: lol}\n" + "".join(
    f"a{i}: &m{i} {{" + ", ".join(f"k{j}: *m{i - 1}" for j in range(9)) + "}\n"
    for i in range(1, 10)
)
files["bomb-in-special.yaml"] = scen(extra="special:\n  laughs:\n" + laughs("    "))
files["bomb-in-special-activation.yaml"] = scen(
    extra="special:\n  laughs:\n" + laughs("    ") + "  activation: *a8\n"
)
files["bomb-in-units.yaml"] = (
    "laughs:\n" + laughs("  ") + scen().replace("units:\n", "units_:\n") + "units: *a8\n"
)
files["bomb-in-map.yaml"] = scen().replace(
    "map: {cols: [1, 10], rows: [1, 8], default: clear}",
    "laughs:\n" + laughs("  ") + "map: {cols: [1, 10], rows: [1, 8], default: clear, terrain: *a8}",
)
files["bomb-export-orders.yaml"] = export(
    "demo-steblev", "laughs:\n" + laughs("  "), "orders: *a8\n"
)
files["bomb-export-dice.yaml"] = (
    export("demo-steblev", "laughs:\n" + laughs("  ") + "dice_: 1\n").replace("dice: []\n", "")
    + "dice: *a8\n"
)
files["bomb-export-inline-scenario.yaml"] = (
    "kessel: game-export\nseed: 7\nscenario:\n"
    + "".join(
        "  " + line + "\n"
        for line in scen(extra="special:\n  laughs:\n" + laughs("    ")).splitlines()
    )
    + "orders: ''\n"
)
files["bomb-merge-keys.yaml"] = (
    "m0: &m0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9}\n"
    + "".join(
        f"m{i}: &m{i} {{" + ", ".join(f"k{j}: {{<<: *m{i - 1}}}" for j in range(9)) + "}\n"
        for i in range(1, 10)
    )
)
files["bomb-many-aliases.yaml"] = "a: &a x\nb: [" + ", ".join(["*a"] * 20_000) + "]\n"
files["bomb-long-string.yaml"] = (
    "s: &s " + "x" * 100_000 + "\nt: [" + ", ".join(["*s"] * 200) + "]\n"
)
files["bomb-as-keys.yaml"] = "laughs:\n" + laughs("  ", levels=6) + "? *a5\n: x\n"
files["recursive-list.yaml"] = "a: &a [1, *a]\n"
files["recursive-map.yaml"] = "a: &a {b: {c: *a}}\n"

# --- nesting, size --------------------------------------------------------------------------
files["deep-flow.yaml"] = "[" * 5000
files["deep-flow-closed.yaml"] = "[" * 200 + "]" * 200 + "\n"
files["deep-block.yaml"] = "".join("  " * i + f"k{i}:\n" for i in range(300)) + "  " * 300 + "x\n"
files["deep-in-special.yaml"] = scen(
    extra="special:\n  deep: " + "{a: " * 100 + "1" + "}" * 100 + "\n"
)
files["huge-scalar.yaml"] = scen().replace("game: korsun", "game: " + "K" * 100_000)
files["huge-int.yaml"] = scen().replace("turns: 5", "turns: " + "9" * 5000)


# --- YAML errors ----------------------------------------------------------------------------
files["duplicate-key.yaml"] = scen() + "turns: 6\n"
files["duplicate-anchor.yaml"] = "a: &x 1\nb: &x 2\n"
files["undefined-alias.yaml"] = "a: *nowhere\n"
files["unsafe-python-object.yaml"] = "a: !!python/object:os.system x\n"
files["unsafe-python-name.yaml"] = "a: !!python/name:os.system\n"
files["unsafe-python-apply.yaml"] = "a: !!python/object/apply:os.system ['echo pwned']\n"
files["tag-binary.yaml"] = "a: !!binary aGVsbG8=\n"
files["tag-set.yaml"] = "a: !!set {x, y}\n"
files["tag-timestamp-junk.yaml"] = "a: !!timestamp hello\n"
files["tag-bool-junk.yaml"] = "a: !!bool maybe\n"
files["tag-int-junk.yaml"] = "a: !!int 12abc\n"
files["tag-map-on-list.yaml"] = "a: !!map [1, 2]\n"
files["impossible-date.yaml"] = scen(extra="calendar: {start: 1944-13-45}\n")
files["two-documents.yaml"] = scen() + "---\nid: again\n"
files["tab-indent.yaml"] = "id: t\n\tsystem: wb95\n"
files["unclosed.yaml"] = "id: [unclosed\nsystem: wb95\n"
files["long-key-300.yaml"] = scen(extra="k" * 300 + ": 1\n").replace(
    "id: hostile", "i" * 300 + ": hostile"
)
files["long-key-2000.yaml"] = "k" * 2000 + ": 1\n"
files["control-character.yaml"] = "id: t\x07\nsystem: wb95\n"

# --- not text, not UTF-8 --------------------------------------------------------------------
files["binary-png.yaml"] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
files["binary-random.yaml"] = bytes((i * 7919 + 13) % 256 for i in range(4096))
files["latin1.yaml"] = (
    scen().replace("id: hostile", "id: hostile\nname: Korsu\xf1").encode("latin-1")
)
files["utf16-le-bom.yaml"] = codecs.BOM_UTF16_LE + scen().encode("utf-16-le")
files["utf16-be-bom.yaml"] = codecs.BOM_UTF16_BE + scen().encode("utf-16-be")
files["utf16-no-bom.yaml"] = scen().encode("utf-16-le")
files["utf32-bom.yaml"] = codecs.BOM_UTF32_LE + scen().encode("utf-32-le")
files["nul-byte.yaml"] = scen().replace("game: korsun", "game: kor\0sun").encode()
files["utf8-bom-junk.yaml"] = codecs.BOM_UTF8 + b"id: bom\n"
files["invalid-utf8.yaml"] = b"id: t\nname: \xc3\x28\n"

# --- wrong shapes ---------------------------------------------------------------------------
files["empty.yaml"] = ""
files["only-comment.yaml"] = "# nothing here\n"
files["top-list.yaml"] = "- id: t\n- system: wb95\n"
files["top-string.yaml"] = "just text\n"
files["top-int.yaml"] = "42\n"
files["top-null.yaml"] = "~\n"
files["export-not-mapping-scenario.yaml"] = export("[1, 2, 3]")
files["export-scenario-number.yaml"] = export("42")
files["export-no-scenario.yaml"] = "kessel: game-export\nseed: 1\n"

# --- exports naming files they should not ---------------------------------------------------
files["export-dev-zero.yaml"] = export("/dev/zero")
files["export-dev-urandom.yaml"] = export("/dev/urandom")
files["export-dev-null.yaml"] = export("/dev/null")
files["export-directory.yaml"] = export('"."')
files["export-root-directory.yaml"] = export("/")
files["export-self.yaml"] = export("export-self.yaml")
files["export-missing.yaml"] = export("no-such-scenario.yaml")
files["export-nul-in-name.yaml"] = export('"demo\\0steblev.yaml"')
files["export-newline-in-name.yaml"] = export('"demo\\nsteblev.yaml"')
files["export-binary-scenario.yaml"] = export("binary-png.yaml")
files["export-bomb-scenario.yaml"] = export("bomb-in-special.yaml")
files["export-bad-seed.yaml"] = export("demo-steblev").replace("seed: 7", "seed: " + "9" * 40)
files["export-bool-seed.yaml"] = export("demo-steblev").replace("seed: 7", "seed: true")
files["export-bad-dice.yaml"] = export("demo-steblev").replace("dice: []", "dice: [7, true, x]")
files["export-orders-not-text.yaml"] = export("demo-steblev", orders="orders: {move: s-180}\n")

# --- unit ids no order can name (K89) -------------------------------------------------------
files["unit-id-space.yaml"] = scen('"s 180"')
files["unit-id-nul.yaml"] = scen('"s\\0180"')
files["unit-id-path.yaml"] = scen('"../s-180"')
files["unit-id-empty.yaml"] = scen('""')
files["unit-id-control.yaml"] = scen('"s-1\\x1b[31m"')
files["unit-id-cyrillic.yaml"] = scen('"\u0455-180"')
files["unit-id-zero-width.yaml"] = scen('"s\u200b180"')
files["unit-id-at-hex.yaml"] = scen('"@0303"')
files["unit-id-reserved-word.yaml"] = scen("support")
files["unit-id-too-long.yaml"] = scen("s" + "x" * 300)
files["air-counters-huge.yaml"] = scen(extra="air: {soviet: {counters: 1000000000}}\n")
files["air-counter-id-space.yaml"] = scen(extra="air: {soviet: {counters: [{id: 'a b', sp: 3}]}}\n")
files["special-surrounded-number.yaml"] = scen(extra="special: {surrounded: 5}\n")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        data = content.encode() if isinstance(content, str) else content
        (OUT / name).write_bytes(data)
    print(len(files), "files written to", OUT)


if __name__ == "__main__":
    main()
