#!/usr/bin/env python3
"""Writes the generated parts of src/vocab/invisible.rs (the table of characters a name must
never show raw, and the Unicode version it comes from), leaving the rest of the file as it is.

Reads the Unicode property tables that regex-syntax (already a dependency, through regex) ships,
generated from the UCD by ucd-generate: general_category.rs and property_bool.rs. Run from the
repository root with the path of regex-syntax's `src/unicode_tables` folder:

    python3 scripts/gen_invisible.py ~/.cargo/registry/src/*/regex-syntax-0.8.*/src/unicode_tables

The unit test in src/vocab/invisible.rs checks the table against the same properties, so a table
and a regex-syntax of different Unicode versions cannot pass together unnoticed.
"""
import re
import sys

folder = sys.argv[1]

def ranges(path, name):
    text = open(f"{folder}/{path}", encoding="utf-8").read()
    m = re.search(r"pub const %s: &'static \[\(char, char\)\] =\s*&\[(.*?)\];" % name, text, re.S)
    out = []
    for a, b in re.findall(r"\('(.*?)', '(.*?)'\)", m.group(1)):
        def dec(s):
            u = re.fullmatch(r"\\u\{([0-9a-fA-F]+)\}", s)
            if u:
                return int(u.group(1), 16)
            simple = {"\\t": 9, "\\n": 10, "\\r": 13, "\\'": 39, "\\\\": 92, "\\0": 0}
            return simple[s] if s in simple else ord(s)
        out.append((dec(a), dec(b)))
    return out

version = re.search(r"Unicode version: ([0-9]+(?:\.[0-9]+)*)",
                    open(f"{folder}/general_category.rs", encoding="utf-8").read()).group(1)

# (flag name, ranges), in bit order.
props = [
    ("DEFAULT_IGNORABLE", ranges("property_bool.rs", "DEFAULT_IGNORABLE_CODE_POINT")),
    ("FORMAT", ranges("general_category.rs", "FORMAT")),
    ("SPACE", [r for r in ranges("general_category.rs", "SPACE_SEPARATOR")]),
    ("LINE_OR_PARAGRAPH", ranges("general_category.rs", "LINE_SEPARATOR")
        + ranges("general_category.rs", "PARAGRAPH_SEPARATOR")),
    ("BIDI_CONTROL", ranges("property_bool.rs", "BIDI_CONTROL")),
    ("VARIATION_SELECTOR", ranges("property_bool.rs", "VARIATION_SELECTOR")),
]
# U+0020 is the one space a name may show as it is.
props[2] = ("SPACE", [(a if a != 0x20 else 0x21, b) for a, b in props[2][1] if not (a == b == 0x20)])

mask = {}
for bit, (_, rs) in enumerate(props):
    for a, b in rs:
        for c in range(a, b + 1):
            mask[c] = mask.get(c, 0) | (1 << bit)

rows = []
for c in sorted(mask):
    if rows and rows[-1][1] == c - 1 and rows[-1][2] == mask[c]:
        rows[-1][1] = c
    else:
        rows.append([c, c, mask[c]])

def flags(m):
    return " | ".join(n for bit, (n, _) in enumerate(props) if m & (1 << bit))


# Only the generated parts of the file change: its prose, code and tests are written by hand.
path = "src/vocab/invisible.rs"
text = open(path, encoding="utf-8").read()
body = "".join(f"    (0x{a:04X}, 0x{b:04X}, {flags(m)}),\n" for a, b, m in rows)
for pattern, generated in [
    (r"(\*\*Unicode )[0-9]+(?:\.[0-9]+)*\.?(\*\*)", version),
    (r'(pub const UNICODE_VERSION: &str = ")[0-9.]+(";)', version),
    (r"(pub const TABLE: &\[\(u32, u32, Props\)\] = &\[\n).*?(^\];)", body),
]:
    text, n = re.subn(pattern, lambda m: m.group(1) + generated + m.group(2), text, count=1,
                      flags=re.S | re.M)
    if n != 1:
        sys.exit(f"{path}: no place for the generated text matching {pattern}")
with open(path, "w", encoding="utf-8") as out:
    out.write(text)
