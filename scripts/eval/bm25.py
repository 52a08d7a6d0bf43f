"""A plain BM25 baseline for the ranking evaluation (see docs/ranking-eval.md).

Documents are whole files: the candidate files gnaw extracts by default (its no-query
`file_list`), read from disk. Tokens: runs of letters, digits and `_`, lowercased; an
identifier that splits (snake_case, camelCase, PascalCase, acronyms; digits stay with their
word: `HTTPServerError`, `utf8Decode`) also gives its parts (`http`, `server`, `error`; `utf8`,
`decode`). No stemming, no stop words, no path field, no boosts. Scoring is Okapi BM25 with
k1 = 1.2, b = 0.75 and idf = ln(1 + (N - df + 0.5) / (df + 0.5)); ties are broken by path.
"""

import math
import re
from collections import Counter

K1 = 1.2
B = 0.75
WORD = re.compile(r"[A-Za-z0-9_]+")
CAMEL = re.compile(r"[A-Z]+[0-9]*(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")


def tokens(text):
    out = []
    for word in WORD.findall(text):
        low = word.lower()
        out.append(low)
        parts = [p.lower() for chunk in word.split("_") if chunk for p in CAMEL.findall(chunk)]
        if len(parts) > 1:
            out.extend(parts)
    return out


class Index:
    def __init__(self, docs):
        """docs: {path: text}."""
        self.paths = sorted(docs)
        self.tf = [Counter(tokens(docs[p])) for p in self.paths]
        self.len = [sum(c.values()) for c in self.tf]
        self.avg = sum(self.len) / len(self.len) if self.len else 0.0
        self.df = Counter()
        for c in self.tf:
            self.df.update(c.keys())

    def rank(self, query):
        n = len(self.paths)
        terms = set(tokens(query))
        idf = {t: math.log(1 + (n - self.df[t] + 0.5) / (self.df[t] + 0.5)) for t in terms}
        scored = []
        for i, tf in enumerate(self.tf):
            s = 0.0
            norm = K1 * (1 - B + B * self.len[i] / self.avg) if self.avg else K1
            for t in terms:
                f = tf.get(t)
                if f:
                    s += idf[t] * f * (K1 + 1) / (f + norm)
            if s > 0:
                scored.append((-s, self.paths[i]))
        scored.sort()
        return [p for _, p in scored]
