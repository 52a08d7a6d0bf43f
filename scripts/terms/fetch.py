#!/usr/bin/env python3
"""Fetch the corpus the term-relatedness table is learned from, pinned and checked.

Usage: fetch.py CACHE_DIR EVAL_CACHE [--lock]

Reads scripts/terms/corpus.json (every package with its version and the SHA-256 of its
archive) and unpacks each archive into CACHE_DIR/src/NAME-VERSION, with the registry's ordinary
client: the crate archive from the crates.io CDN (or cargo's own download cache, when it holds
the same bytes), `pip download --no-binary :all: --no-deps` (the PyPI sdist), `npm pack` (the
published tarball). A digest that differs stops the fetch.

With --lock, packages.txt is resolved first: each package not yet pinned is fetched at the
version its registry serves now (crates: gnaw's own Cargo.lock versions, and the newest
otherwise), and corpus.json is written with what was fetched.

No evaluated repository may be in the corpus. A package of the ranking evaluation
(scripts/eval/queries/*.json), or of the same source repository (EXCLUDE_SIBLINGS), stops the
fetch; and every file whose bytes equal those of a file in an evaluated corpus (EVAL_CACHE, as
scripts/eval/fetch.py lays it out) is left out of the file list. Writes CACHE_DIR/files.txt: the
files the table is built from, one path a line, relative to CACHE_DIR/src.
"""

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import glob
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus.json")

# Packages published from the repository of an evaluated package (the evaluated package's own
# name comes from the evaluation's pins).
EXCLUDE_SIBLINGS = {
    # rust-lang/regex
    "regex", "regex-automata", "regex-syntax", "regex-lite",
    # clap-rs/clap
    "clap", "clap_builder", "clap_derive", "clap_lex", "clap_complete", "clap_mangen",
    # BurntSushi/ripgrep
    "ignore", "globset", "grep", "grep-searcher", "grep-matcher", "grep-regex",
    # serde-rs/json
    "serde_json",
    # pallets/click, psf/requests
    "click", "requests",
    # expressjs/express, websockets/ws, axios/axios, ReactiveX/rxjs
    "express", "ws", "axios", "rxjs",
}

# Crates of generated bindings and data (system constants, Unicode tables): their names say
# little about the words near them.
GENERATED = {
    "linux-raw-sys", "libc", "windows-sys", "windows-link", "winapi-util", "redox_syscall",
    "perf-event-open-sys", "icu_properties_data", "icu_normalizer_data", "unicode-ident",
    "unicode-normalization", "unicode-properties", "ucd-trie", "encoding_rs",
}

# What the table reads: source and documentation, by extension.
TEXT_EXT = {
    ".rs", ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".c",
    ".h", ".cc", ".cpp", ".hpp", ".md", ".rst", ".txt", ".pyx", ".go", ".java",
}
MAX_FILE = 256 << 10


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def eval_packages():
    names = set()
    for path in glob.glob(os.path.join(ROOT, "scripts/eval/queries/*.json")):
        with open(path) as fh:
            for name, c in json.load(fh)["corpora"].items():
                names.add(name.lower())
                names.add(c.get("package", name).lower())
    return names


def eval_digests(eval_cache):
    out = set()
    for dirpath, _, files in os.walk(eval_cache):
        for f in files:
            p = os.path.join(dirpath, f)
            if os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) <= 4 << 20:
                with open(p, "rb") as fh:
                    out.add(sha256(fh.read()))
    return out


def crate_bytes(name, version):
    for cached in glob.glob(os.path.expanduser(f"~/.cargo/registry/cache/*/{name}-{version}.crate")):
        with open(cached, "rb") as fh:
            return fh.read()
    url = f"https://static.crates.io/crates/{name}/{name}-{version}.crate"
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.read()


def crate_newest(name):
    """The newest non-yanked, non-prerelease version in the sparse index (what cargo reads)."""
    n = name.lower()
    if len(n) <= 2:
        prefix = f"{len(n)}"
    elif len(n) == 3:
        prefix = f"3/{n[0]}"
    else:
        prefix = f"{n[:2]}/{n[2:4]}"
    with urllib.request.urlopen(f"https://index.crates.io/{prefix}/{n}", timeout=60) as r:
        lines = [json.loads(line) for line in r.read().decode().splitlines() if line]
    ok = [v for v in lines if not v.get("yanked") and "-" not in v["vers"]]
    return ok[-1]["vers"]


def lock_crates():
    """gnaw's own crates.io dependencies, as Cargo.lock pins them."""
    with open(os.path.join(ROOT, "Cargo.lock")) as fh:
        text = fh.read()
    out = []
    for block in text.split("[[package]]"):
        name = re.search(r'^name = "([^"]+)"', block, re.M)
        version = re.search(r'^version = "([^"]+)"', block, re.M)
        source = re.search(r'^source = "registry\+', block, re.M)
        if name and version and source:
            out.append((name.group(1), version.group(1)))
    return out


# pip reads an sdist's metadata with its build backend; these, installed once in a virtual
# environment of the cache, spare a fresh build environment per package.
BACKENDS = ["setuptools", "wheel", "flit_core", "hatchling", "hatch-vcs", "hatch-fancy-pypi-readme",
            "setuptools_scm", "poetry-core", "pdm-backend", "Cython", "cffi"]


def pip(cache):
    venv = os.path.join(cache, "venv")
    if not os.path.exists(os.path.join(venv, "bin", "pip")):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", *BACKENDS], check=True)
    return os.path.join(venv, "bin", "pip")


def pypi_fetch(name, version, tmp, cache):
    spec = f"{name}=={version}" if version else name
    subprocess.run(
        [pip(cache), "download", "--no-binary", ":all:", "--no-deps", "--no-build-isolation",
         "-q", "-d", tmp, spec],
        check=True, stdout=subprocess.DEVNULL)
    files = os.listdir(tmp)
    assert len(files) == 1, files
    path = os.path.join(tmp, files[0])
    with open(path, "rb") as fh:
        data = fh.read()
    m = re.match(r"(.+?)-(\d[^-]*?)\.(tar\.gz|zip|tar\.bz2)$", files[0])
    return data, (m.group(2) if m else version), files[0]


def npm_fetch(name, version, tmp):
    spec = f"{name}@{version}" if version else name
    out = subprocess.run(["npm", "pack", "--json", "--pack-destination", tmp, spec],
                         check=True, capture_output=True, text=True, cwd=tmp)
    info = json.loads(out.stdout)[0]
    with open(os.path.join(tmp, info["filename"]), "rb") as fh:
        return fh.read(), info["version"], info["filename"]


def unpack(data, filename, dest):
    os.makedirs(dest, exist_ok=True)
    if filename.endswith(".zip"):
        import zipfile
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for m in z.infolist():
                if m.is_dir() or ".." in m.filename.split("/") or m.filename.startswith("/"):
                    continue
                target = os.path.join(dest, m.filename)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as fh:
                    fh.write(z.read(m))
        return
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        t.extractall(dest, filter="data")


def fetch_one(entry, src_dir, lock, cache):
    source, name = entry["source"], entry["name"]
    version = entry.get("version")
    # An archive fetched before is kept beside the sources and checked again, not fetched again.
    archives = os.path.join(cache, "archives")
    os.makedirs(archives, exist_ok=True)
    key = f"{source}-{name.replace('/', '+')}-{version}"
    kept = glob.glob(os.path.join(archives, glob.escape(key) + ".*")) if version else []
    if kept:
        filename = os.path.basename(kept[0])[len(key) + 1:]
        with open(kept[0], "rb") as fh:
            data = fh.read()
    else:
        with tempfile.TemporaryDirectory() as tmp:
            if source == "crate":
                if not version:
                    version = crate_newest(name)
                data, filename = crate_bytes(name, version), f"{name}-{version}.crate.tar.gz"
            elif source == "pypi":
                data, version, filename = pypi_fetch(name, version, tmp, cache)
            elif source == "npm":
                data, version, filename = npm_fetch(name, version, tmp)
            else:
                sys.exit(f"{name}: unknown source {source}")
        key = f"{source}-{name.replace('/', '+')}-{version}"
    digest = sha256(data)
    if entry.get("sha256") and entry["sha256"] != digest:
        sys.exit(f"{source} {name} {version}: SHA-256 {digest}, pinned {entry['sha256']}")
    if not lock and not entry.get("sha256"):
        sys.exit(f"{source} {name}: not pinned; run with --lock")
    if not kept:
        with open(os.path.join(archives, f"{key}.{filename}"), "wb") as fh:
            fh.write(data)
    dest = os.path.join(src_dir, key)
    if not os.path.isdir(dest):
        unpack(data, filename, dest + ".part")
        os.rename(dest + ".part", dest)
    return {"source": source, "name": name, "version": version, "sha256": digest}


def main():
    cache, eval_cache = sys.argv[1], sys.argv[2]
    lock = "--lock" in sys.argv[3:]
    src_dir = os.path.join(cache, "src")
    os.makedirs(src_dir, exist_ok=True)
    pinned = []
    if os.path.exists(CORPUS):
        with open(CORPUS) as fh:
            pinned = json.load(fh)["packages"]
    if lock:
        pinned = [p for p in pinned if p["name"] not in GENERATED]
        have = {(p["source"], p["name"]) for p in pinned}
        wanted = [("crate", n, v) for n, v in lock_crates()]
        with open(os.path.join(HERE, "packages.txt")) as fh:
            for line in fh:
                line = line.split("#", 1)[0].split()
                if line:
                    wanted.append((line[0], line[1], None))
        for source, name, version in wanted:
            if name in GENERATED:
                continue
            if (source, name) not in have:
                have.add((source, name))
                pinned.append({"source": source, "name": name} | ({"version": version} if version else {}))
    banned = eval_packages() | EXCLUDE_SIBLINGS
    for entry in pinned:
        if entry["name"].lower() in banned and not lock:
            sys.exit(f"{entry['source']} {entry['name']} is an evaluated package or its sibling")
    if any(p["source"] == "pypi" for p in pinned):
        pip(cache)

    def one(entry):
        if entry["name"].lower() in banned:
            print(f"left out (evaluated): {entry['source']} {entry['name']}", file=sys.stderr)
            return None
        try:
            return fetch_one(entry, src_dir, lock, cache)
        except (subprocess.CalledProcessError, OSError, AssertionError) as e:
            if not lock:
                raise
            print(f"left out (fetch failed: {e}): {entry['source']} {entry['name']}", file=sys.stderr)
            return None

    with ThreadPoolExecutor(4) as pool:
        kept = [k for k in pool.map(one, pinned) if k]
    if lock:
        kept.sort(key=lambda p: (p["source"], p["name"]))
        with open(CORPUS, "w") as fh:
            json.dump({"packages": kept}, fh, indent=1)
            fh.write("\n")
    # The file list: text files, none equal to a file of an evaluated corpus.
    if not os.path.isdir(eval_cache):
        sys.exit(f"{eval_cache}: no evaluated corpora to check against (scripts/eval/fetch.py)")
    banned_digests = eval_digests(eval_cache)
    dirs = {f"{p['source']}-{p['name'].replace('/', '+')}-{p['version']}" for p in kept}
    files, dropped = [], 0
    for d in sorted(dirs):
        for dirpath, subdirs, names in os.walk(os.path.join(src_dir, d)):
            subdirs.sort()
            for f in sorted(names):
                p = os.path.join(dirpath, f)
                ext = os.path.splitext(f)[1].lower()
                if ext not in TEXT_EXT or f.endswith((".min.js", ".map")) or os.path.islink(p):
                    continue
                if os.path.getsize(p) > MAX_FILE:
                    continue
                with open(p, "rb") as fh:
                    data = fh.read()
                if sha256(data) in banned_digests:
                    dropped += 1
                    continue
                files.append(os.path.relpath(p, src_dir))
    with open(os.path.join(cache, "files.txt"), "w") as fh:
        fh.write("\n".join(files) + "\n")
    print(f"{len(kept)} packages, {len(files)} files; {dropped} files left out as equal to an "
          f"evaluated corpus's", file=sys.stderr)


if __name__ == "__main__":
    main()
