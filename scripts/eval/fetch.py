#!/usr/bin/env python3
"""Fetch the ranking evaluation's corpora into a cache directory (see docs/ranking-eval.md).

Every corpus is a package at a pinned version, fetched with the ordinary client of the registry
that serves it, and unpacked to CACHE/<name>-<version>/ (nothing is committed):

  crate   cargo vendor of a scratch project that depends on `=VERSION` (no build)
  pypi    pip download --no-binary NAME --no-deps NAME==VERSION (the sdist)
  npm     npm pack NAME@VERSION (the published tarball)
  debian  the source package's upstream tarball (`.orig.tar.*`, or a native package's one
          tarball), located with `apt-get source --print-uris NAME=VERSION` and downloaded with
          apt's own `apt-helper download-file`, which checks it against the SHA-256 the signed
          Sources index gives; the apt state is private, its deb-src lines made from the
          machine's own deb lines (the system is not changed). Only the tarball is fetched: the
          mirror reachable here lacks some packages' `.debian.tar.*`, which `apt-get source`
          would then fail on
  deb     a binary package (`apt-get download NAME=VERSION`, the same private apt state),
          unpacked with `dpkg-deb -x`, keeping the directory `keep` names: for interpreted
          languages whose Debian source tarballs the mirror lacks (Ruby, Lua), the installed
          library is the package's source

Every corpus is pinned twice: by version, and by `sha256`, the digest of the archive fetched
(the `.crate` for a crate, as recorded in its `.cargo-checksum.json`; the sdist; the npm
tarball; the Debian tarball or `.deb`). A digest that differs stops the fetch; a corpus without
one is fetched and its digest printed, to be added to the spec.

A corpus may name `drop`: directories removed after unpacking (compiled copies of the sources
that a package also ships, e.g. an npm package's `dist/`), so that the judged files are the
sources. A corpus already in the cache is left alone (delete its directory to fetch it again).

Usage: fetch.py CACHE_DIR QUERIES_DIR
"""

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile


def run(cmd, cwd=None, env=None):
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"fetch: {' '.join(cmd)} failed:\n{out.stderr[-2000:]}")
    return out.stdout


def unpack(archive, dest):
    """Unpack a tar or zip archive whose contents are one top directory, as `dest`."""
    tmp = tempfile.mkdtemp(dir=os.path.dirname(dest))
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            z.extractall(tmp)
    else:
        with tarfile.open(archive) as t:
            t.extractall(tmp, filter="data")
    tops = os.listdir(tmp)
    src = os.path.join(tmp, tops[0]) if len(tops) == 1 else tmp
    os.rename(src, dest)
    shutil.rmtree(tmp, ignore_errors=True)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch_crate(c, dest):
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(f"{work}/src")
        open(f"{work}/src/lib.rs", "w").close()
        with open(f"{work}/Cargo.toml", "w") as f:
            f.write('[package]\nname = "gnaw-eval-fetch"\nversion = "0.0.0"\nedition = "2021"\n'
                    f'[dependencies]\n{c["package"]} = "={c["version"]}"\n')
        run(["cargo", "vendor", "--versioned-dirs", "--quiet", f"{work}/vendor"], cwd=work)
        src = f"{work}/vendor/{c['package']}-{c['version']}"
        digest = json.load(open(f"{src}/.cargo-checksum.json"))["package"]
        shutil.copytree(src, dest)
        return digest


def fetch_pypi(c, dest):
    with tempfile.TemporaryDirectory() as work:
        run([sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", c["package"],
             "--no-deps", "-d", work, f"{c['package']}=={c['version']}"])
        (archive,) = glob.glob(f"{work}/*")
        unpack(archive, dest)
        return sha256(archive)


def fetch_npm(c, dest):
    with tempfile.TemporaryDirectory() as work:
        run(["npm", "pack", "--silent", f"{c['package']}@{c['version']}"], cwd=work)
        (archive,) = glob.glob(f"{work}/*.tgz")
        unpack(archive, dest)
        return sha256(archive)


def apt_state(cache):
    """A private apt state with deb-src lines for the machine's own deb sources."""
    state = f"{cache}/.apt"
    if glob.glob(f"{state}/lists/*Sources*") and glob.glob(f"{state}/lists/*Packages*"):
        return state
    os.makedirs(f"{state}/lists/partial", exist_ok=True)
    os.makedirs(f"{state}/parts", exist_ok=True)
    srcs = []
    for path in glob.glob("/etc/apt/sources.list.d/*.sources"):
        text = open(path).read()
        srcs.append(text.replace("Types: deb\n", "Types: deb deb-src\n"))
    for path in ["/etc/apt/sources.list"] + glob.glob("/etc/apt/sources.list.d/*.list"):
        if os.path.exists(path):
            debs = [ln for ln in open(path) if ln.startswith("deb ")]
            lines = debs + [ln.replace("deb ", "deb-src ", 1) for ln in debs]
            if lines:
                with open(f"{state}/parts/{os.path.basename(path)}", "w") as f:
                    f.writelines(lines)
    with open(f"{state}/parts/src.sources", "w") as f:
        f.write("\n".join(srcs))
    run(["apt-get", *apt_opts(state), "update"])
    return state


def apt_opts(state):
    return ["-o", "Dir::Etc::SourceList=/dev/null", "-o", f"Dir::Etc::SourceParts={state}/parts",
            "-o", f"Dir::State::Lists={state}/lists", "-o", "APT::Sandbox::User=root"]


def fetch_debian(c, dest, cache):
    state = apt_state(cache)
    uris = run(["apt-get", *apt_opts(state), "source", "--print-uris", "-qq",
                f"{c['package']}={c['version']}"])
    files = []  # (uri, name, hash) of each file of the source package
    for line in uris.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0].startswith("'"):
            files.append((parts[0].strip("'"), parts[1], parts[3]))
    tars = [f for f in files if ".tar." in f[1] and not f[1].endswith(".asc")]
    origs = [f for f in tars if ".orig.tar." in f[1] and ".orig-" not in f[1]]
    if not origs:  # a native package: its one tarball
        origs = [f for f in tars if ".debian.tar." not in f[1]]
    if not origs:
        sys.exit(f"fetch: no upstream tarball for {c['package']}={c['version']}")
    uri, name, digest = sorted(origs, key=lambda f: f[1])[0]
    with tempfile.TemporaryDirectory() as work:
        run(["/usr/lib/apt/apt-helper", "-o", "APT::Sandbox::User=root", "download-file",
             uri, f"{work}/{name}", digest])
        unpack(f"{work}/{name}", dest)
        return sha256(f"{work}/{name}")


def fetch_deb(c, dest, cache):
    state = apt_state(cache)
    with tempfile.TemporaryDirectory() as work:
        run(["apt-get", *apt_opts(state), "download", "-qq",
             f"{c['package']}={c['version']}"], cwd=work)
        (deb,) = glob.glob(f"{work}/*.deb")
        run(["dpkg-deb", "-x", deb, f"{work}/root"])
        shutil.copytree(f"{work}/root/{c['keep']}", dest, symlinks=True)
        return sha256(deb)


def main():
    cache, qdir = sys.argv[1:3]
    os.makedirs(cache, exist_ok=True)
    for spec_path in sorted(glob.glob(f"{qdir}/*.json")):
        spec = json.load(open(spec_path))
        for name, c in spec["corpora"].items():
            dest = f"{cache}/{c['dir']}"
            if os.path.isdir(dest):
                continue
            print(f"fetch: {spec['language']}: {c['source']} {c['package']} {c['version']}",
                  file=sys.stderr)
            tmp_dest = dest + ".partial"
            shutil.rmtree(tmp_dest, ignore_errors=True)
            if c["source"] == "crate":
                digest = fetch_crate(c, tmp_dest)
            elif c["source"] == "pypi":
                digest = fetch_pypi(c, tmp_dest)
            elif c["source"] == "npm":
                digest = fetch_npm(c, tmp_dest)
            elif c["source"] == "debian":
                digest = fetch_debian(c, tmp_dest, cache)
            elif c["source"] == "deb":
                digest = fetch_deb(c, tmp_dest, cache)
            else:
                sys.exit(f"fetch: unknown source {c['source']!r} in {spec_path}")
            if "sha256" not in c:
                print(f"fetch: {name}: no sha256 pin; fetched {digest}", file=sys.stderr)
            elif c["sha256"] != digest:
                shutil.rmtree(tmp_dest, ignore_errors=True)
                sys.exit(f"fetch: {name}: sha256 {digest} is not the pinned {c['sha256']}")
            for d in c.get("drop", []):
                shutil.rmtree(f"{tmp_dest}/{d}", ignore_errors=True)
            os.rename(tmp_dest, dest)


if __name__ == "__main__":
    main()
