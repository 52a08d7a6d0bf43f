#!/usr/bin/env bash
# The secrets scanner's precision check on real text: builds pinned corpora of other people's
# repositories, lockfiles and CI configs, runs `gnaw --json --secrets warn` on each, and prints
# the number of findings per corpus (a markdown table) and every finding's fingerprint
# (path:rule:line, never the matched text). The goal is zero findings in all but the two *-trees
# corpora: none holds a real secret, so each finding is a false positive, and in the default
# redact mode it corrupts what the model reads. docs/secrets.md has the latest counts.
#
#   scripts/secrets-corpora.sh                 # every corpus
#   scripts/secrets-corpora.sh npm cargo       # only these
#   scripts/secrets-corpora.sh --list          # the corpora and what each holds
#   options: --gnaw PATH (default: target/release/gnaw, built first)
#
# Corpora (manifests and pins under scripts/secrets-corpora/):
#   medium, many   the benchmark corpora of scripts/bench.sh (cargo vendor of pinned Cargo.locks)
#   cargo          that Cargo.lock, and the CI configs (GitHub Actions; GitLab CI in hex, termion
#                  and the redox crates), manifests and lockfiles of cargo-trees
#   npm            package-lock.json resolved by npm from secrets-corpora/npm/package.json
#   yarn-v1        yarn.lock (v1) of the same manifest, by yarn 1.22.22
#   yarn-berry     yarn.lock (berry, `"@scope/x": "npm:^1.0.0"` entries) by yarn 4.5.3
#   pnpm           pnpm-lock.yaml of the same manifest, by pnpm 9.15.0
#   poetry         poetry.lock resolved by poetry 1.8.4 from secrets-corpora/poetry/pyproject.toml
#   sdists         the CI configs (GitHub Actions), tox, nox, pre-commit and packaging files of
#                  the PyPI sdists pinned in secrets-corpora/sdists.txt
#   go             go.mod and go.sum of the Debian Go source packages in secrets-corpora/debian-go.txt
#   cargo-trees    cargo vendor of secrets-corpora/cargo/Cargo.lock: JWT, PEM, TLS and password
#                  hashing crates whose tests and docs hold test keys and tokens. Like sdists-trees,
#                  not a zero target: each finding is listed, for triage
#   sdists-trees   the whole trees of those sdists, tests and docs included: not a zero target,
#                  since tests and docs hold literal passwords and documented example tokens
#                  (each finding is listed, for triage)
#
# Lockfiles are resolved when a corpus is first built (npm with --before, the others at the
# registries' state of that day), so a rebuild on another day may resolve newer transitive
# versions; the built corpora are kept and reused until their manifest changes. Everything is
# fetched through the registries' own clients (cargo, npm, pip, apt-get download) into
# $GNAW_SECRETS_DIR (default ~/.cache/gnaw-secrets-corpora); after that the scan runs offline.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
pins="$here/secrets-corpora"
dir=${GNAW_SECRETS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gnaw-secrets-corpora}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
tools="$dir/tools"
gnaw=""
all="medium many cargo npm yarn-v1 yarn-berry pnpm poetry sdists go cargo-trees sdists-trees"
# npm resolves as of this day, so the npm corpus is the same whenever it is built.
npm_before=2024-12-15

want=()
while [ $# -gt 0 ]; do
    case "$1" in
        --gnaw) gnaw=${2:?--gnaw needs a path}; shift ;;
        --list) sed -n '/^# Corpora/,/^# Lockfiles/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "secrets-corpora.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *)
            case " $all " in
                *" $1 "*) want+=("$1") ;;
                *) echo "secrets-corpora.sh: unknown corpus $1 (one of: $all)" >&2; exit 2 ;;
            esac ;;
    esac
    shift
done
[ ${#want[@]} -eq 0 ] && read -r -a want <<<"$all"

say() { echo "secrets-corpora: $*" >&2; }

# stamp NAME FILES...: true if corpus NAME was built from these exact files.
fresh() {
    local name=$1; shift
    local want
    want=$(cat "$@" | sha256sum | cut -c1-16)
    [ -d "$dir/corpus/$name" ] && [ "$(cat "$dir/corpus/$name.stamp" 2>/dev/null)" = "$want" ]
}
stamp() {
    local name=$1; shift
    cat "$@" | sha256sum | cut -c1-16 >"$dir/corpus/$name.stamp"
}

# Vendor a pinned Cargo manifest, like scripts/bench.sh, without its size filter: every file is
# scanned here.
vendor() {
    local name=$1 manifest=$2
    fresh "$name" "$manifest/Cargo.lock" "$manifest/Cargo.toml" && return
    say "building $name: cargo vendor of $manifest/Cargo.lock"
    local out="$dir/corpus/$name"
    rm -rf "$out" "$out.tmp"
    cargo vendor --locked --versioned-dirs --manifest-path "$manifest/Cargo.toml" "$out.tmp" \
        >/dev/null 2>"$dir/vendor-$name.log" || { cat "$dir/vendor-$name.log" >&2; exit 1; }
    find "$out.tmp" -name .cargo-checksum.json -delete
    cp "$manifest/Cargo.lock" "$out.tmp/Cargo.lock"
    mv "$out.tmp" "$out"
    stamp "$name" "$manifest/Cargo.lock" "$manifest/Cargo.toml"
}

# A tool installed from npm into $tools/NAME, pinned.
npm_tool() {
    local name=$1 spec=$2
    [ -d "$tools/$name/node_modules" ] && return
    say "installing $spec into $tools/$name"
    npm install --prefix "$tools/$name" --no-audit --no-fund --silent "$spec" >/dev/null
}

# One JavaScript lockfile: copy the manifest into a scratch dir, let the tool resolve it, keep
# only the lockfile (never node_modules).
js_lock() {
    local name=$1 lockfile=$2
    shift 2
    fresh "$name" "$pins/npm/package.json" && return
    say "building $name: resolving secrets-corpora/npm/package.json into $lockfile"
    local work="$dir/work/$name" out="$dir/corpus/$name"
    rm -rf "$work" "$out"
    mkdir -p "$work" "$out"
    cp "$pins/npm/package.json" "$work/"
    (cd "$work" && "$@") >"$dir/$name.log" 2>&1 || { tail -30 "$dir/$name.log" >&2; exit 1; }
    cp "$work/$lockfile" "$out/$lockfile"
    rm -rf "$work"
    stamp "$name" "$pins/npm/package.json"
}

# Copy the CI configs, lockfiles and package manifests of corpus FROM into corpus TO, keeping
# their paths: the files of a repository that the corpora of lockfiles and CI configs are about.
config_files() {
    local from="$dir/corpus/$1" out="$dir/corpus/$2"
    rm -rf "$out"
    mkdir -p "$out"
    (cd "$from" && find . -type f \( -path '*/.github/*' -o -path '*/.gitlab/*' \
        -o -path '*/.circleci/*' -o -name .gitlab-ci.yml -o -name .travis.yml \
        -o -name 'azure-pipelines*.yml' -o -name appveyor.yml -o -name .cirrus.yml \
        -o -name tox.ini -o -name noxfile.py -o -name .pre-commit-config.yaml -o -name '*.lock' \
        -o -name 'requirements*.txt' -o -name pyproject.toml -o -name setup.cfg -o -name PKG-INFO \
        -o -name Cargo.toml -o -name Cargo.toml.orig -o -name deny.toml -o -name clippy.toml \
        -o -name rustfmt.toml -o -name .readthedocs.yaml -o -name .readthedocs.yml \) \
        -exec cp --parents {} "$out/" \;)
}

build() {
    case "$1" in
        medium|many) vendor "$1" "$here/bench/$1" ;;
        npm)
            js_lock npm package-lock.json npm install --package-lock-only --ignore-scripts \
                --no-audit --no-fund --before="$npm_before" ;;
        yarn-v1)
            npm_tool yarn1 yarn@1.22.22
            js_lock yarn-v1 yarn.lock "$tools/yarn1/node_modules/.bin/yarn" install \
                --ignore-scripts --ignore-engines --non-interactive --no-progress \
                --cache-folder "$dir/work/yarn1-cache" ;;
        yarn-berry)
            npm_tool berry @yarnpkg/cli-dist@4.5.3
            js_lock yarn-berry yarn.lock env YARN_ENABLE_IMMUTABLE_INSTALLS=false \
                YARN_ENABLE_TELEMETRY=0 YARN_ENABLE_GLOBAL_CACHE=0 YARN_NODE_LINKER=node-modules \
                sh -c ': >yarn.lock && node "$0" install --mode=update-lockfile' \
                "$tools/berry/node_modules/@yarnpkg/cli-dist/bin/yarn.js" ;;
        pnpm)
            npm_tool pnpm pnpm@9.15.0
            js_lock pnpm pnpm-lock.yaml "$tools/pnpm/node_modules/.bin/pnpm" install \
                --lockfile-only --ignore-scripts ;;
        poetry)
            fresh poetry "$pins/poetry/pyproject.toml" && return
            if [ ! -x "$tools/poetry/bin/poetry" ]; then
                say "installing poetry 1.8.4 into $tools/poetry"
                python3 -m venv "$tools/poetry"
                "$tools/poetry/bin/pip" install --quiet poetry==1.8.4
            fi
            say "building poetry: poetry lock of secrets-corpora/poetry/pyproject.toml"
            local work="$dir/work/poetry" out="$dir/corpus/poetry"
            rm -rf "$work" "$out"
            mkdir -p "$work" "$out"
            cp "$pins/poetry/pyproject.toml" "$work/"
            (cd "$work" && POETRY_CACHE_DIR="$dir/work/poetry-cache" \
                "$tools/poetry/bin/poetry" lock --no-interaction) >"$dir/poetry.log" 2>&1 \
                || { tail -30 "$dir/poetry.log" >&2; exit 1; }
            cp "$work/poetry.lock" "$work/pyproject.toml" "$out/"
            rm -rf "$work"
            stamp poetry "$pins/poetry/pyproject.toml" ;;
        sdists-trees)
            fresh sdists-trees "$pins/sdists.txt" && return
            say "building sdists-trees: pip download of secrets-corpora/sdists.txt"
            local out="$dir/corpus/sdists-trees" dl="$dir/work/sdists"
            rm -rf "$out" "$dl"
            mkdir -p "$out" "$dl"
            # pip prepares each sdist's metadata to check it: the build backends come from
            # a venv of their own, so that nothing else is built from source.
            if [ ! -x "$tools/pybuild/bin/pip" ]; then
                python3 -m venv "$tools/pybuild"
                "$tools/pybuild/bin/pip" install --quiet setuptools setuptools-scm wheel \
                    hatchling hatch-vcs hatch-fancy-pypi-readme flit-core
            fi
            grep -v '^#' "$pins/sdists.txt" | while read -r spec; do
                [ -n "$spec" ] || continue
                "$tools/pybuild/bin/pip" download --quiet --no-deps --no-binary ":all:" \
                    --no-build-isolation -d "$dl" "$spec" >>"$dir/sdists.log" 2>&1 \
                    || { tail -20 "$dir/sdists.log" >&2; exit 1; }
            done
            for f in "$dl"/*.tar.gz; do tar -xzf "$f" -C "$out"; done
            for f in "$dl"/*.zip; do [ -e "$f" ] && (cd "$out" && python3 -m zipfile -e "$f" .); done
            rm -rf "$dl"
            stamp sdists-trees "$pins/sdists.txt" ;;
        sdists)
            build sdists-trees
            fresh sdists "$pins/sdists.txt" && return
            say "building sdists: the CI, lockfile and packaging files of sdists-trees"
            config_files sdists-trees sdists
            stamp sdists "$pins/sdists.txt" ;;
        cargo)
            vendor cargo-trees "$pins/cargo"
            fresh cargo "$pins/cargo/Cargo.lock" "$pins/cargo/Cargo.toml" && return
            say "building cargo: the CI, lockfile and manifest files of cargo-trees"
            config_files cargo-trees cargo
            stamp cargo "$pins/cargo/Cargo.lock" "$pins/cargo/Cargo.toml" ;;
        go)
            fresh go "$pins/debian-go.txt" && return
            say "building go: apt-get download of secrets-corpora/debian-go.txt"
            local out="$dir/corpus/go" dl="$dir/work/go"
            rm -rf "$out" "$dl"
            mkdir -p "$out" "$dl"
            # shellcheck disable=SC2046
            (cd "$dl" && apt-get download $(grep -v '^#' "$pins/debian-go.txt")) \
                >"$dir/go.log" 2>&1 || { tail -20 "$dir/go.log" >&2; exit 1; }
            for deb in "$dl"/*.deb; do
                local pkg
                pkg=$(basename "$deb" .deb)
                mkdir -p "$dl/x" "$out/$pkg"
                dpkg-deb -x "$deb" "$dl/x"
                # Keep the module files and CI configs: the rest is Go source, already covered
                # in kind by the crates.
                (cd "$dl/x" && find . \( -name go.mod -o -name go.sum -o -path '*/.github/*' \
                    -o -name .gitlab-ci.yml -o -name .travis.yml \) -type f \
                    -exec cp --parents {} "$out/$pkg/" \;)
                rm -rf "$dl/x"
            done
            rm -rf "$dl"
            stamp go "$pins/debian-go.txt" ;;
    esac
}

if [ -z "$gnaw" ]; then
    say "building the release gnaw"
    (cd "$repo" && cargo build --release --quiet --bin gnaw)
    gnaw="$repo/target/release/gnaw"
fi
mkdir -p "$dir/corpus" "$dir/results"
for c in "${want[@]}"; do build "$c"; done

stamp=$(date -u +%Y-%m-%d)
echo "Secrets scan of the precision corpora, $stamp, $("$gnaw" --version) ($gnaw), tree at $(git -C "$repo" rev-parse --short HEAD)."
echo
echo "| corpus | files | MB | findings |"
echo "|---|---:|---:|---:|"
details=()
for c in "${want[@]}"; do
    json="$dir/results/$c.json"
    # Every file, hidden or ignored, up to 64 MiB: the corpus is the text, not a repository's
    # choice of files. Sensitive files (keys, .env) stay out, as they would in a prompt.
    "$gnaw" "$dir/corpus/$c" --json --no-count --secrets warn --hidden --no-ignore \
        --max-file-size 64MiB -q -o /dev/null >"$json"
    python3 - "$c" "$json" <<'EOF'
import json, sys
name, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))
print(f"| {name} | {r['files']} | {r['bytes'] / 1e6:.1f} | {len(r['secrets'])} |")
EOF
    details+=("$json")
done
echo
for json in "${details[@]}"; do
    python3 - "$json" <<'EOF'
import json, os, sys
r = json.load(open(sys.argv[1]))
for f in r["secrets"]:
    print(f"finding: {os.path.basename(sys.argv[1])[:-5]}: {f['fingerprint']}")
EOF
done
