#!/usr/bin/env python3
"""Trying a ranking signal offline: gnaw's own rankings re-sorted with an extra signal, scored
as quick.py scores them, without changing the ranker.

    rerank.py dump GNAW_BIN OUT_JSON          # every query's first 60 files with their score parts
    rerank.py oracle DUMP_JSON                # the best order of the first 10, 20, 40 files
    rerank.py weights DUMP_JSON               # the score's parts reweighted on dev (coordinate ascent)
    rerank.py feedback DUMP_JSON              # pseudo-relevance feedback from the best files
    rerank.py concentration DUMP_JSON         # the share of a file's terms that are the query's
    rerank.py likelihood DUMP_JSON            # query likelihood, Dirichlet-smoothed
    rerank.py directory DUMP_JSON             # a file lifted by the best other file of its directory
    rerank.py questions DUMP_JSON             # the name boosts reweighed in questions of 3+ words
    rerank.py related DUMP_JSON               # query terms the term table relates to a file's name

Each prints NDCG@10 by split and kind for a grid of settings on the dev half, then the held-out
half for the settings named at the end (the best of each form on dev): the held-out half is
only ever read as a whole. `dump` makes the same call as quick.py (`gnaw CORPUS --json -q
--explain --estimate --query Q --budget 8000`, `EVAL_JOBS` at once) over
`scripts/eval/queries` and `EVAL_CACHE` (default `~/.cache/gnaw-eval`), about 90 seconds.

The signals that need the files' terms read the corpora from the cache and split them as
`bm25.py` does (runs of letters, digits and `_`, identifiers split into their parts), stemmed
as gnaw stems (`gnaw_stem`, a copy of `terms.rs`'s `stem`: the term table's terms went through
it), with a stop list of their own: an approximation of gnaw's terms, good enough to tell
whether a signal is worth building. A signal reorders only the first 40 files of a ranking;
with weight 0 every form gives the dump's own figures exactly. Python standard library only.
"""

import collections
import json
import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bm25 as plain  # noqa: E402
import eval as ev  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = (None, "identifier", "semantic", "architecture")
TOP = 40
STOP = set(
    "a an the of to in on for and or is are be by with from as at it its this that how where "
    "what when which who does do can into not no so if then than each one two there their they "
    "them we you your our all any some more most other such only also up out over under about "
    "after before between through while why was were has have had will would should could may "
    "might must get gets set".split()
)


def dump(binary, out):
    cache = os.environ.get("EVAL_CACHE", os.path.expanduser("~/.cache/gnaw-eval"))
    corpora, queries = ev.load(os.path.join(HERE, "queries"), cache)

    def run(q):
        repo = corpora[q["corpus"]]["repo"]
        return dict(q, repo=repo, ranking=ev.ranking(binary, repo, q["query"])[:60])

    with ThreadPoolExecutor(ev.JOBS) as pool:
        rows = list(pool.map(run, queries))
    with open(out, "w") as fh:
        json.dump(rows, fh)


def table(rows, orders):
    out = {}
    for split in ("dev", "heldout"):
        for kind in KINDS:
            sel = [i for i, r in enumerate(rows)
                   if r["split"] == split and kind in (None, r["kind"])]
            out[(split, kind)] = ev.mean([ev.ndcg10(orders[i], rows[i]["relevant"]) for i in sel])
    return out


def shown(t, held=False):
    splits = ("dev", "heldout") if held else ("dev",)
    return " | ".join(
        "%s %.4f (identifier %.3f, semantic %.3f, architecture %.3f)"
        % ((s,) + tuple(t[(s, k)] for k in KINDS)) for s in splits)


def resorted(rows, extra, w):
    """Each ranking's first TOP files re-sorted by score + w * extra(i)[j], ties by path."""
    out = []
    for i, r in enumerate(rows):
        head = r["ranking"][:TOP]
        ex = extra(i) if w else [0.0] * len(head)
        cand = sorted(((x["score"] + w * ex[j], x["path"]) for j, x in enumerate(head)),
                      key=lambda c: (-c[0], c[1]))
        out.append([c[1] for c in cand] + [x["path"] for x in r["ranking"][TOP:]])
    return out


def gnaw_stem(t):
    """gnaw's stemmer (`src/stages/rank/terms.rs`), which the term table's terms went through."""
    if len(t) <= 3 or not t.isascii():
        return t
    if t.endswith("ies") and len(t) > 4:
        t = t[:-3] + "i"
    elif t.endswith("s") and not t.endswith(("ss", "us", "is")):
        t = t[:-1]
    for suffix in ("ing", "ed"):
        if t.endswith(suffix) and len(t) - len(suffix) >= 3:
            t = t[: -len(suffix)]
            if len(t) >= 4 and t[-1] == t[-2] and t[-1] not in "lsz":
                t = t[:-1]
            break
    if t.endswith("er") and len(t) >= 6:
        t = t[:-2]
    if len(t) > 3:
        if t.endswith("e"):
            t = t[:-1]
        elif t.endswith("y"):
            t = t[:-1] + "i"
    return t


def terms(text):
    return [gnaw_stem(t) for t in plain.tokens(text)
            if len(t) > 2 and t not in STOP and not t.isdigit()]


class Corpora:
    """Every file's term counts, per corpus, read once."""

    def __init__(self, rows):
        self.tf, self.df, self.cf, self.total, self.avg = {}, {}, {}, {}, {}
        for repo in sorted({r["repo"] for r in rows}):
            files = {}
            for top, _, names in os.walk(repo):
                for name in names:
                    path = os.path.join(top, name)
                    try:
                        if os.path.getsize(path) > 1 << 20:
                            continue
                        with open(path, encoding="utf-8") as fh:
                            text = fh.read()
                    except (OSError, UnicodeDecodeError):
                        continue
                    rel = os.path.relpath(path, repo)
                    files[rel] = collections.Counter(terms(text) + terms(rel))
            df, cf = collections.Counter(), collections.Counter()
            for c in files.values():
                df.update(c.keys())
                cf.update(c)
            self.tf[repo], self.df[repo], self.cf[repo] = files, df, cf
            self.total[repo] = sum(cf.values())
            self.avg[repo] = self.total[repo] / max(1, len(files))

    def idf(self, repo, t):
        n, d = len(self.tf[repo]), self.df[repo].get(t, 0)
        return math.log(1 + (n - d + 0.5) / (d + 0.5))

    def counts(self, repo, path):
        return self.tf[repo].get(path, collections.Counter())


def memo(f):
    kept = {}

    def g(*a):
        if a not in kept:
            kept[a] = f(*a)
        return kept[a]
    return g


def grid(rows, name, settings, extra_for, held):
    print("%s, weight 0: %s" % (name, shown(table(rows, resorted(rows, None, 0)), True)))
    for s in settings:
        *key, w = s
        print(name, s, shown(table(rows, resorted(rows, lambda i: extra_for(i, *key), w))),
              flush=True)
    for s in held:
        *key, w = s
        print(name, s, "(best on dev):",
              shown(table(rows, resorted(rows, lambda i: extra_for(i, *key), w)), True))


def feedback(rows):
    """RM3-like: the weightiest terms (tf/len * idf) of the best k files, not in the query,
    as a second BM25 over the first TOP files."""
    c = Corpora(rows)

    @memo
    def extra(i, k, n):
        r = rows[i]
        repo, own = r["repo"], set(terms(r["query"]))
        weight = collections.Counter()
        for x in r["ranking"][:k]:
            tf = c.counts(repo, x["path"])
            size = sum(tf.values()) or 1
            for t, f in tf.items():
                if t not in own:
                    weight[t] += f / size * c.idf(repo, t)
        best = weight.most_common(n)
        norm = sum(v for _, v in best) or 1.0
        out = []
        for x in r["ranking"][:TOP]:
            tf = c.counts(repo, x["path"])
            size = sum(tf.values())
            s = 0.0
            for t, v in best:
                f = tf.get(t, 0)
                if f:
                    s += v / norm * c.idf(repo, t) * f * 2.2 / (
                        f + 1.2 * (0.25 + 0.75 * size / c.avg[repo]))
            out.append(s)
        return out

    settings = [(k, n, w) for k in (1, 2, 3, 5) for n in (5, 10, 20) for w in (0.1, 0.2, 0.4, 0.8)]
    grid(rows, "feedback (files, terms, weight)", settings, extra, [(1, 5, 0.4), (1, 20, 0.8)])


def concentration(rows):
    """How much of a file is the query's terms: their count over the file's, times 10."""
    c = Corpora(rows)

    @memo
    def extra(i):
        r = rows[i]
        own = set(terms(r["query"]))
        out = []
        for x in r["ranking"][:TOP]:
            tf = c.counts(r["repo"], x["path"])
            out.append(10 * sum(tf.get(t, 0) for t in own) / (sum(tf.values()) + 1))
        return out

    settings = [(w,) for w in (0.1, 0.2, 0.4, 0.8, 1.6, 3.2)]
    grid(rows, "concentration (weight)", settings, extra, [(0.8,), (1.6,)])


def likelihood(rows):
    """Query likelihood with Dirichlet smoothing (mu), over the collection's term counts."""
    c = Corpora(rows)

    @memo
    def extra(i, mu):
        r = rows[i]
        repo, own = r["repo"], list(dict.fromkeys(terms(r["query"])))
        out = []
        for x in r["ranking"][:TOP]:
            tf = c.counts(repo, x["path"])
            size = sum(tf.values())
            s = 0.0
            for t in own:
                pc = (c.cf[repo].get(t, 0) + 0.5) / c.total[repo]
                s += math.log((tf.get(t, 0) + mu * pc) / (size + mu)) - math.log(pc)
            out.append(s)
        return out

    settings = [(mu, w) for mu in (100, 500, 2000) for w in (0.1, 0.2, 0.4, 0.8, 1.6)]
    grid(rows, "likelihood (mu, weight)", settings, extra, [(100, 0.1)])


def weights(rows):
    """Each part of the score times a multiplier (0 to 3), chosen by coordinate ascent on the
    dev half, then checked by 5-fold cross-validation over dev's corpora and on held out."""
    parts = sorted({p for r in rows for x in r["ranking"] for p in x["parts"]} - {"prior"})

    def orders(w):
        out = []
        for r in rows:
            head = r["ranking"][:TOP]
            cand = sorted(((sum(w.get(p, 1.0) * v for p, v in x["parts"].items()), x["path"])
                           for x in head), key=lambda c: (-c[0], c[1]))
            out.append([c[1] for c in cand] + [x["path"] for x in r["ranking"][TOP:]])
        return out

    def score(w, sel):
        o = orders(w)
        return ev.mean([ev.ndcg10(o[i], rows[i]["relevant"]) for i in sel])

    def ascend(sel):
        w, best = {}, score({}, sel)
        for _ in range(3):
            moved = False
            for p in parts:
                for g in (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0):
                    t = dict(w, **{p: g})
                    v = score(t, sel)
                    if v > best + 1e-4:
                        best, w, moved = v, t, True
            if not moved:
                break
        return w

    dev = [i for i, r in enumerate(rows) if r["split"] == "dev"]
    print("the parts summed again (rounded as --json shows them):",
          shown(table(rows, orders({})), True))
    w = ascend(dev)
    print("multipliers learned on dev:", w)
    print("  ", shown(table(rows, orders(w)), True))
    corpora = sorted({rows[i]["corpus"] for i in dev})
    folds = [corpora[k::5] for k in range(5)]
    base = learned = 0.0
    for fold in folds:
        train = [i for i in dev if rows[i]["corpus"] not in fold]
        test = [i for i in dev if rows[i]["corpus"] in fold]
        base += score({}, test) * len(test)
        learned += score(ascend(train), test) * len(test)
    print("dev, 5 folds by corpus: %.4f -> %.4f" % (base / len(dev), learned / len(dev)))


def directory(rows):
    """Cluster-style: a file gains w times the score of the best other file of its directory
    among the first k."""

    @memo
    def extra(i, k):
        ranking = rows[i]["ranking"]
        by = collections.defaultdict(list)
        for x in ranking[:k]:
            by[os.path.dirname(x["path"])].append(x)
        out = []
        for x in ranking[:TOP]:
            others = [y["score"] for y in by[os.path.dirname(x["path"])] if y is not x]
            out.append(max(others, default=0.0))
        return out

    settings = [(k, w) for k in (10, 20, 60) for w in (0.02, 0.05, 0.1, 0.2)]
    grid(rows, "directory (first k, weight)", settings, extra, [(20, 0.1)])


def questions(rows):
    """In a question of three words or more, `defines_symbol`, `names_file` and
    `names_directory` times their own multipliers (through the class factor the file had)."""
    lowered = ("secondary_file", "docs_file", "auxiliary_file")

    def orders(fd, ff, fdir):
        out = []
        for r in rows:
            question = len(r["query"].split()) >= 3
            cand = []
            for x in r["ranking"][:TOP]:
                p, s = x["parts"], x["score"]
                if question:
                    up = sum(v for k, v in p.items()
                             if k not in lowered + ("prior", "header_declares"))
                    down = sum(v for k, v in p.items() if k in lowered)
                    factor = (up + down) / up if up > 0 else 1.0
                    s += factor * ((fd - 1) * p.get("defines_symbol", 0)
                                   + (ff - 1) * p.get("names_file", 0)
                                   + (fdir - 1) * p.get("names_directory", 0))
                cand.append((s, x["path"]))
            cand.sort(key=lambda c: (-c[0], c[1]))
            out.append([c[1] for c in cand] + [x["path"] for x in r["ranking"][TOP:]])
        return out

    print("as ranked:", shown(table(rows, orders(1, 1, 1)), True))
    found = []
    for fd in (0.25, 0.5, 0.75, 1.0):
        for ff in (0.5, 0.75, 1.0):
            for fdir in (1.0, 1.5, 2.0):
                t = table(rows, orders(fd, ff, fdir))
                found.append((t[("dev", None)], (fd, ff, fdir), t))
    found.sort(key=lambda f: -f[0])
    for _, setting, t in found[:3]:
        print("defines_symbol, names_file, names_directory x", setting, "(best on dev):",
              shown(t, True))


def related(rows):
    """The learned term table (`src/stages/rank/related.txt`) as a reranking signal: each query
    term not among the parts of a file's name (and of its directory's, with dirs 1) gains the
    strongest relation it has to one of them, times its idf."""
    table = collections.defaultdict(dict)
    with open(os.path.join(HERE, "..", "..", "src", "stages", "rank", "related.txt")) as fh:
        for line in fh:
            term, _, value = line.rstrip("\n").partition("\t")
            for entry in value.split():
                other, _, strength = entry.partition(":")
                s = int(strength) / 10
                table[term][other] = max(table[term].get(other, 0), s)
                table[other][term] = max(table[other].get(term, 0), s)
    c = Corpora(rows)

    def stems(text):
        return [gnaw_stem(t) for t in plain.tokens(text) if len(t) > 1]

    @memo
    def extra(i, dirs, least):
        r = rows[i]
        own = list(dict.fromkeys(t for t in stems(r["query"]) if len(t) > 2 and t not in STOP))
        out = []
        for x in r["ranking"][:TOP]:
            names = set(stems(os.path.basename(x["path"]).split(".")[0]))
            for d in os.path.dirname(x["path"]).split("/")[-dirs:] if dirs else []:
                names |= set(stems(d))
            v = 0.0
            for t in own:
                best = max((table[t].get(n, 0) for n in names), default=0)
                if t not in names and best >= least:
                    v += best * c.idf(r["repo"], t)
            out.append(v)
        return out

    settings = [(d, m, w) for d in (0, 1) for m in (0.3, 0.5) for w in (0.1, 0.2, 0.4, 0.8, 1.6)]
    grid(rows, "related (dirs, least strength, weight)", settings, extra, [(0, 0.3, 1.6)])


def oracle(rows):
    for k in (10, 20, TOP):
        orders = []
        for r in rows:
            paths = [x["path"] for x in r["ranking"]]
            head = sorted(paths[:k], key=lambda p: -r["relevant"].get(p, 0))
            orders.append(head + paths[k:])
        print("the first %d in the best order:" % k, shown(table(rows, orders), True))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    what = sys.argv[1]
    if what == "dump":
        return dump(sys.argv[2], sys.argv[3])
    with open(sys.argv[2]) as fh:
        rows = json.load(fh)
    forms = {"oracle": oracle, "weights": weights, "feedback": feedback,
             "concentration": concentration, "likelihood": likelihood,
             "directory": directory, "questions": questions, "related": related}
    if what not in forms:
        sys.exit(__doc__)
    forms[what](rows)


if __name__ == "__main__":
    main()
