#!/usr/bin/env python3
"""Exact token reduction of `gnaw --compress` at each level (docs, summary, signatures), per
language, with the definition check and `repomix --compress` side by side in the same run.
Prints a markdown table for docs/compression.md.

    scripts/bench/compression.py --gnaw target/release/gnaw \\
        [--repomix 'node .../repomix/bin/repomix.cjs'] CORPUS[:LANG[,LANG...]]...

Each CORPUS is a directory; with `:LANG`, only those languages (gnaw's names: rust, python,
javascript, typescript, tsx, go, java, c, cpp, csharp, ruby, php, kotlin, swift, scala, lua,
bash, elixir, haskell, zig), else every language with files in it. A CORPUS ending in `/*` is
measured one subdirectory at a time and summed (one run's parse budget, 3 s of parsing, does not
cover 17 MB of Rust; a run past it shows the files it did not parse whole, and is flagged `†`).
A language's extensions are read from the one table that defines them, `languages!` in
src/stages/languages.rs.

Per row (one language's files of one corpus, chosen with `--include **/*.EXT`):
- the prompt's exact o200k tokens (gnaw's own count, `--json`) whole and with
  `--compress=docs`, `=summary` and `=signatures`;
- every definition `gnaw outline` finds in those files, top-level and nested, looked up by its
  first line in each compressed prompt, both without comments (summary and signatures drop the
  comments a line holds) and without whitespace. The definition is kept when a prompt line is
  its first line, or when a prompt line ending in a body marker (`{ ⋯ 12 }`, `{ ⋯ 12–40 }`,
  `: ⋯ 12`), the marker cut off, is a beginning of its first line that reaches at least its
  head: the first line up to where its body starts, i.e. as far as the outline's signature goes
  on that line (`static bool f(int)` of `static bool f(int) { return true; }`), and for a macro
  up to its parameters (`#define SQ(x)`). Else it is lost: a definition whose name or signature
  is missing still is, and so is one whose line was cut before its signature ends;
- with repomix: `repomix --style plain --include GLOBS` with and without `--compress`, each
  output counted by gnaw as one file; its reduction is against its own uncompressed output.
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

LEVELS = ["docs", "summary", "signatures"]
TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../src/stages/languages.rs")


def languages():
    """gnaw's languages and their extensions, in the table's order."""
    text = open(TABLE, encoding="utf-8").read()
    table = text[text.index("languages! {"):]
    out = {}
    for m in re.finditer(r'\w+ = "(\w+)",.*?extensions \[([^\]]*)\]', table, re.S):
        out[m.group(1)] = re.findall(r'"([^"]+)"', m.group(2))
    return out


def gnaw_json(gnaw, repo, args):
    """The `--json` summary and the prompt of one run; the summary's `budget_spent` says
    whether the run's parse budget ran out (some files shown whole for it)."""
    with tempfile.NamedTemporaryFile() as out:
        r = subprocess.run([gnaw, repo, "--json", "--no-cache", "-o", out.name, *args],
                           capture_output=True, text=True, check=True)
        summary = json.loads(r.stdout)
        summary["budget_spent"] = "gnaw: --compress:" in r.stderr
        return summary, open(out.name, encoding="utf-8").read()


def count_file(gnaw, path):
    """Exact tokens of one file's text, as gnaw counts a lone file with no tree."""
    with tempfile.TemporaryDirectory() as d:
        with open(path, "rb") as src, open(os.path.join(d, "out.txt"), "wb") as dst:
            dst.write(src.read())
        s, _ = gnaw_json(gnaw, d, ["--no-tree", "--max-file-size", "1GiB"])
        return s["tokens"]


def definition_lines(gnaw, repo, files):
    """Each definition `gnaw outline` finds in `files`: its first line, and its head (see
    `head_of`), both as `code_of` compares them."""
    defs = []
    for i in range(0, len(files), 100):
        chunk = files[i:i + 100]
        r = subprocess.run([gnaw, "outline", repo, *chunk], capture_output=True, text=True)
        path, text = None, {}
        for row in r.stdout.splitlines():
            if row.startswith("==> "):
                path = row[4:].rsplit(" (", 1)[0]
                continue
            row = row.strip()
            # `START-END kind[ name]: signature  // doc` (the name when the signature lacks it).
            m = re.match(r"(\d+)-\d+ (\w+)(.*)$", row)
            if not row or path is None or not m:
                continue
            start = int(m.group(1))
            rest = m.group(3).split("  // ", 1)[0]
            signature = rest.split(": ", 1)[1] if ": " in rest else ""
            if path not in text:
                try:
                    text[path] = open(os.path.join(repo, path), encoding="utf-8",
                                      errors="replace").read().split("\n")
                except OSError:
                    text[path] = []
            if start <= len(text[path]):
                first = text[path][start - 1].strip()
                code = code_of(first)
                defs.append((code, head_of(code, first, m.group(2), signature)))
    return defs


MARKER = re.compile(r"\s*⋯ \d+(?:–\d+)?(?: [\])};,\s]*)?$")


def code_of(line):
    """A line without its comments (`/* … */` spans; `//`, and `#` or `--` before a space, at
    its start or after a space), without a body elided at its end (`{ ⋯ 12–40 }`, `: ⋯ 12`,
    the opener kept), and without whitespace: how definitions' lines are compared, since
    summary and signatures drop the comments a line holds and signatures fold a body's marker
    into it."""
    line = MARKER.sub("", line)
    line = re.sub(r"/\*.*?\*/", " ", line)
    line = re.split(r"(?:^|\s)(?://|#\s|--\s)", line + " ", maxsplit=1)[0]
    return "".join(line.split())


def head_of(code, first, kind, signature):
    """The beginning of a definition's first line (`code`, as `code_of` gives it) a prompt must
    show for it to be kept: up to the end of its signature on that line (the longest beginning
    of the outline's signature found in the line, and what is before it), for a macro up to
    its parameters; the whole line when neither is found."""
    if kind == "macro":
        m = re.match(r"\s*#\s*define\s+\w+(?:\([^)]*\))?", first)
        head = "".join(m.group(0).split()) if m else ""
        return head if head and code.startswith(head) else code
    sig = "".join(signature.rstrip("…").split())
    for k in range(len(sig), 0, -1):
        at = code.find(sig[:k])
        if at >= 0:
            return code[:at + k]
    return code


def lost(definitions, prompt):
    """How many of `definitions` (first line and head) no line of `prompt` keeps: none is the
    first line, and none that ends in a body marker begins the first line as far as its head."""
    shown, folded = set(), set()
    for line in prompt.splitlines():
        code = code_of(line)
        shown.add(code)
        if MARKER.search(line) and code:
            folded.add(code)
    count = 0
    for code, head in definitions:
        if not code or code in shown:
            continue
        if not any(code[:k] in folded for k in range(max(len(head), 1), len(code) + 1)):
            count += 1
    return count


def pct(part, whole):
    return f"{(1 - part / whole) * 100:.1f}%" if whole else "n/a"


def repomix_tokens(cmd, gnaw, repo, globs, compress):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "repomix.txt")
        args = [*cmd, repo, "--style", "plain", "--include", ",".join(globs), "-o", out,
                "--quiet"] + (["--compress"] if compress else [])
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(out):
            print(f"repomix failed on {repo}: {r.stderr[:300]}", file=sys.stderr)
            return None
        return count_file(gnaw, out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gnaw", required=True)
    ap.add_argument("--repomix", help="the repomix command, e.g. 'node path/to/repomix.cjs'")
    ap.add_argument("corpora", nargs="+", metavar="CORPUS[:LANG,...]")
    a = ap.parse_args()
    langs = languages()
    repomix = shlex.split(a.repomix) if a.repomix else None
    print("| corpus | language | files | tokens | docs | summary | signatures | definitions "
          "checked / lost (docs, summary, signatures) | repomix --compress |")
    print("|---|---|---|---|---|---|---|---|---|")
    for arg in a.corpora:
        corpus, _, only = arg.partition(":")
        wanted = only.split(",") if only else list(langs)
        if corpus.endswith("/*"):
            top = corpus[:-2]
            parts = sorted(os.path.join(top, d) for d in os.listdir(top)
                           if os.path.isdir(os.path.join(top, d)))
            name = f"{os.path.basename(top.rstrip('/'))} (each of {len(parts)} apart)"
        else:
            parts, name = [corpus], os.path.basename(corpus.rstrip("/"))
        for lang in wanted:
            row = measure(a.gnaw, repomix, parts, langs[lang])
            if row is None:
                continue
            files, tokens, levels, checked, losses, spent, rm = row
            cells = [f"{t:,} ({pct(t, tokens)})" for t in levels]
            mark = " †" if spent else ""
            rmc = f"{rm[1]:,} ({pct(rm[1], rm[0])})" if rm else "n/a"
            print(f"| {name}{mark} | {lang} | {files} | {tokens:,} | {' | '.join(cells)} | "
                  f"{checked} / {', '.join(map(str, losses))} | {rmc} |")
            sys.stdout.flush()


def measure(gnaw, repomix, parts, exts):
    """One row over the directories `parts`, summed: files, tokens, tokens per level,
    definitions checked and lost per level, whether a parse budget ran out, and repomix's
    (whole, compressed) tokens; `None` when no part has files of the language."""
    globs = [f"**/*.{e}" for e in exts]
    args = [x for g in globs for x in ("--include", g)]
    files = tokens = checked = 0
    levels, losses = [0] * len(LEVELS), [0] * len(LEVELS)
    spent = False
    rm = [0, 0] if repomix else None
    for repo in parts:
        full, _ = gnaw_json(gnaw, repo, args)
        if full["files"] == 0:
            continue
        files += full["files"]
        tokens += full["tokens"]
        definitions = definition_lines(gnaw, repo, [f["path"] for f in full["file_list"]])
        checked += len(definitions)
        for i, level in enumerate(LEVELS):
            s, prompt = gnaw_json(gnaw, repo, args + [f"--compress={level}"])
            levels[i] += s["tokens"]
            losses[i] += lost(definitions, prompt)
            spent |= s["budget_spent"]
        if rm is not None:
            whole = repomix_tokens(repomix, gnaw, repo, globs, False)
            comp = repomix_tokens(repomix, gnaw, repo, globs, True)
            if whole is None or comp is None:
                rm = None
            else:
                rm[0] += whole
                rm[1] += comp
    if files == 0:
        return None
    return files, tokens, levels, checked, losses, spent, rm


if __name__ == "__main__":
    main()
