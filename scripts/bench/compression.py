#!/usr/bin/env python3
"""Exact token reduction of `gnaw --compress`, per language, with the definition check and a
side-by-side with `repomix --compress` (issue 15). Prints a markdown table for
docs/compression.md.

    scripts/bench/compression.py --gnaw target/release/gnaw [--repomix PATH] DIR...

For every DIR and every language with files in it: the prompt's exact o200k tokens (gnaw's own
count, `--json`) without and with `--compress`, restricted to that language's files with
`--include`; every top-level definition `gnaw outline` finds in those files is looked up, by its
first line, in the compressed prompt (a definition is lost when its line is missing); and, when
repomix is given, `repomix --compress --style plain` on the same files, its output counted by
gnaw as one file (`--no-tree`, the same header overhead for every row).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

LANGS = {
    "rust": ["rs"], "python": ["py"], "javascript": ["js", "mjs", "cjs", "jsx"],
    "typescript": ["ts", "mts", "cts", "tsx"], "go": ["go"], "java": ["java"], "c": ["c", "h"],
    "cpp": ["cc", "cpp", "cxx", "hpp", "hh"], "csharp": ["cs"], "ruby": ["rb"], "php": ["php"],
    "kotlin": ["kt"], "swift": ["swift"], "scala": ["scala"], "lua": ["lua"], "bash": ["sh"],
    "elixir": ["ex", "exs"], "haskell": ["hs"], "zig": ["zig"],
}


def gnaw_json(gnaw, repo, args):
    with tempfile.NamedTemporaryFile() as out:
        r = subprocess.run([gnaw, repo, "--json", "-q", "-o", out.name, *args],
                           capture_output=True, text=True, check=True)
        return json.loads(r.stdout), open(out.name, encoding="utf-8").read()


def count_file(gnaw, path):
    """Exact tokens of one file's text, as gnaw counts a lone file with no tree."""
    with tempfile.TemporaryDirectory() as d:
        with open(path, "rb") as src, open(os.path.join(d, "out.txt"), "wb") as dst:
            dst.write(src.read())
        s, _ = gnaw_json(gnaw, d, ["--no-tree", "--max-file-size", "1GiB"])
        return s["tokens"]


def lost_definitions(gnaw, repo, files, prompt):
    checked = lost = 0
    lines_in_prompt = set(l.strip() for l in prompt.splitlines())
    for i in range(0, len(files), 100):
        chunk = files[i:i + 100]
        r = subprocess.run([gnaw, "outline", repo, *chunk], capture_output=True, text=True)
        path = None
        text = {}
        for row in r.stdout.splitlines():
            if row.startswith("==> "):
                path = row[4:].split(" (")[0].split(":")[0]
                continue
            if not row or row.startswith(" ") or path is None or not row[0].isdigit():
                continue
            start = int(row.split("-")[0])
            if path not in text:
                try:
                    text[path] = open(os.path.join(repo, path), encoding="utf-8",
                                      errors="replace").read().split("\n")
                except OSError:
                    continue
            line = text[path][start - 1].strip()
            checked += 1
            if line and line not in lines_in_prompt:
                lost += 1
    return checked, lost


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gnaw", required=True)
    ap.add_argument("--repomix")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    print("| corpus | language | files | tokens | --compress | reduction | top-level definitions "
          "checked / lost | repomix --compress | repomix reduction |")
    print("|---|---|---|---|---|---|---|---|---|")
    for repo in a.dirs:
        for lang, exts in LANGS.items():
            inc = [f"**/*.{e}" for e in exts]
            args = [x for g in inc for x in ("--include", g)]
            full, _ = gnaw_json(a.gnaw, repo, args)
            if full["files"] == 0:
                continue
            comp, prompt = gnaw_json(a.gnaw, repo, args + ["--compress"])
            files = [f["path"] for f in comp.get("file_list", [])]
            checked, lost = lost_definitions(a.gnaw, repo, files, prompt)
            red = 1 - comp["tokens"] / full["tokens"]
            rm = rmred = "n/a"
            if a.repomix:
                with tempfile.TemporaryDirectory() as d:
                    out = os.path.join(d, "repomix.txt")
                    r = subprocess.run([a.repomix, repo, "--compress", "--style", "plain",
                                        "--include", ",".join(inc), "-o", out, "--quiet"],
                                       capture_output=True, text=True)
                    if r.returncode == 0 and os.path.exists(out):
                        t = count_file(a.gnaw, out)
                        rm = f"{t:,}"
                        rmred = f"{(1 - t / full['tokens']) * 100:.1f}%"
            print(f"| {os.path.basename(repo.rstrip('/'))} | {lang} | {full['files']} | "
                  f"{full['tokens']:,} | {comp['tokens']:,} | {red * 100:.1f}% | "
                  f"{checked} / {lost} | {rm} | {rmred} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
