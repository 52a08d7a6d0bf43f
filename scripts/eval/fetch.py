#!/usr/bin/env python3
"""Fetch the ranking evaluation's corpora into a cache directory (see docs/ranking-eval.md).

Every corpus is a package at a pinned version, fetched with the ordinary client of the registry
that serves it, and unpacked to CACHE/<name>-<version>/ (nothing is committed):

  crate   cargo vendor of a scratch project that depends on `=VERSION` (no build)
  pypi    pip download --no-binary NAME --no-deps NAME==VERSION (the sdist)
  npm     npm pack NAME@VERSION (the published tarball)
  debian  apt-get source --download-only NAME=VERSION, with a private apt state whose
          deb-src lines are made from the machine's own deb lines (the system is not changed)

A corpus may name `drop`: directories removed after unpacking (compiled copies of the sources
that a package also ships, e.g. an npm package's `dist/`), so that the judged files are the
sources. A corpus already in the cache is left alone (delete its directory to fetch it again).

Usage: fetch.py CACHE_DIR QUERIES_DIR
"""

import glob
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


def fetch_crate(c, dest):
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(f"{work}/src")
        open(f"{work}/src/lib.rs", "w").close()
        with open(f"{work}/Cargo.toml", "w") as f:
            f.write('[package]\nname = "gnaw-eval-fetch"\nversion = "0.0.0"\nedition = "2021"\n'
                    f'[dependencies]\n{c["package"]} = "={c["version"]}"\n')
        run(["cargo", "vendor", "--versioned-dirs", "--quiet", f"{work}/vendor"], cwd=work)
        shutil.copytree(f"{work}/vendor/{c['package']}-{c['version']}", dest)


def fetch_pypi(c, dest):
    with tempfile.TemporaryDirectory() as work:
        run([sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", c["package"],
             "--no-deps", "-d", work, f"{c['package']}=={c['version']}"])
        (archive,) = glob.glob(f"{work}/*")
        unpack(archive, dest)


def fetch_npm(c, dest):
    with tempfile.TemporaryDirectory() as work:
        run(["npm", "pack", "--silent", f"{c['package']}@{c['version']}"], cwd=work)
        (archive,) = glob.glob(f"{work}/*.tgz")
        unpack(archive, dest)


def apt_state(cache):
    """A private apt state with deb-src lines for the machine's own deb sources."""
    state = f"{cache}/.apt"
    if os.path.isdir(f"{state}/lists") and glob.glob(f"{state}/lists/*Sources*"):
        return state
    os.makedirs(f"{state}/lists/partial", exist_ok=True)
    os.makedirs(f"{state}/parts", exist_ok=True)
    srcs = []
    for path in glob.glob("/etc/apt/sources.list.d/*.sources"):
        text = open(path).read()
        srcs.append(text.replace("Types: deb\n", "Types: deb-src\n"))
    for path in ["/etc/apt/sources.list"] + glob.glob("/etc/apt/sources.list.d/*.list"):
        if os.path.exists(path):
            lines = [ln.replace("deb ", "deb-src ", 1) for ln in open(path)
                     if ln.startswith("deb ")]
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
    with tempfile.TemporaryDirectory() as work:
        run(["apt-get", *apt_opts(state), "source", "--download-only", "-qq",
             f"{c['package']}={c['version']}"], cwd=work)
        origs = [p for p in glob.glob(f"{work}/*.orig.tar.*") if not p.endswith(".asc")]
        if not origs:  # a native package: its one tarball
            origs = [p for p in glob.glob(f"{work}/*.tar.*") if not p.endswith(".asc")]
        unpack(sorted(origs)[0], dest)


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
                fetch_crate(c, tmp_dest)
            elif c["source"] == "pypi":
                fetch_pypi(c, tmp_dest)
            elif c["source"] == "npm":
                fetch_npm(c, tmp_dest)
            elif c["source"] == "debian":
                fetch_debian(c, tmp_dest, cache)
            else:
                sys.exit(f"fetch: unknown source {c['source']!r} in {spec_path}")
            for d in c.get("drop", []):
                shutil.rmtree(f"{tmp_dest}/{d}", ignore_errors=True)
            os.rename(tmp_dest, dest)


if __name__ == "__main__":
    main()
