#!/usr/bin/env python3
"""Writes the checked-in seed corpus of the parser-facing fuzz targets (fuzz/seeds/TARGET/):
the outline fixtures of every language (tests/outline_fixtures/), the hostile-repo patterns of
tests/hostile_repos/parse.rs at fuzz size, and names and texts carrying secrets, invisible and
control characters. Deterministic; run from the repository root. The input layouts are those
of fuzz/checks/*.rs (first byte: language, path or budget)."""
import os

EXTS = ["rs", "py", "js", "ts", "tsx", "go", "java", "c", "cpp", "cs", "rb", "php", "kt",
        "swift", "scala", "lua", "sh", "ex", "hs", "zig"]
PATTERNS = {
    "brackets": "} { -> ( ) [ ] ? : func ( [ { ",
    "generics": "a<b<c<",
    "strings": "\"${ '\\ \"\"\" `${ r#\" ",
    "comments": "/* /*/ (* {- --[[ <!-- #{ ",
}
# A token built at run time, so no scanner flags this file.
TOKEN = "gh" + "p_" + "u8Zq3LmN7pX2vR9tK4wY6bJ1cH5dF0gS8aQe"
AWS = "AK" + "IAIOSFODNN7EXAMPLQ"


def write(target, name, data):
    d = os.path.join("fuzz", "seeds", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def fixture(ext):
    p = os.path.join("tests", "outline_fixtures", "sample." + ext)
    with open(p, "rb") as f:
        return f.read()


for i, ext in enumerate(EXTS):
    sel = bytes([i])
    src = fixture(ext)
    write("outline", f"{ext}-sample", sel + src)
    for pname, unit in PATTERNS.items():
        write("outline", f"{ext}-{pname}", sel + (unit * (2048 // len(unit))).encode())
    # symbol: a name line, then the file; the name is the first definition-looking word.
    words = [w for w in src.replace(b"(", b" ").split() if w.isalpha() and len(w) > 3]
    name = words[min(3, len(words) - 1)] if words else b"main"
    write("symbol", f"{ext}-sample", sel + name + b"\n" + src)
    write("symbol", f"{ext}-qualified", sel + b"Thing::new\n" + src)
    write("symbol", f"{ext}-brackets", sel + b"f\n" + (PATTERNS["brackets"] * 150).encode())
    # compress: budget byte, then files split by 0xFF, each led by its language byte.
    other = EXTS[(i + 7) % len(EXTS)]
    write("compress", f"{ext}-pair", bytes([i * 4 + 1]) + sel + src + b"\xff"
          + bytes([(i + 7) % len(EXTS)]) + fixture(other))
    write("compress", f"{ext}-whole", b"\x00" + sel + src)
    write("compress", f"{ext}-secret", bytes([2]) + sel + src + f"\n// {TOKEN}\n".encode())

texts = {
    "github": f"let t = \"{TOKEN}\";\n",
    "aws": f"aws_access_key_id = {AWS}\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
    "env": "DATABASE_URL=postgres://admin:s3cr3tP4ss@db.internal:5432/app\nAPI_KEY=Zx81kLmq0Pq7Yw2Rt5Uv9Ab3Cd6Ef\n",
    "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7Vq2fZx0q\nabcdEFGHijklMNOP\n-----END RSA PRIVATE KEY-----\n",
    "jwt": "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n",
    "url": "remote = https://user:" + TOKEN + "@github.com/o/r.git\n",
    "placeholder": "password = \"${PASSWORD}\"\napi_key = <your-key-here>\n",
    "markers": f"x = [REDACTED:github-token] {TOKEN}[REDACTED:aws-access-key]\n",
}
for i, (name, text) in enumerate(texts.items()):
    write("secrets", name, bytes([i % 6]) + text.encode())

names = {
    "plain": b"src/main.rs",
    "token": f"keys/key_{TOKEN}.txt".encode(),
    "token-dir": f"backup_{TOKEN}_2024/notes.txt".encode(),
    "aws": f"creds/{AWS}.csv".encode(),
    "invisible": "a\u200bb/\u2800/\u202egnp.exe/\U000e0041tag/\ufe0fvs".encode(),
    "controls": b"a\nb\tc\rd\x1b[31m/\x7f\x00e",
    "not-utf8": b"caf\xe9/\xff\xfe/ok",
    "escapes": b"a\\nb/\\u{200b}/\\x41",
    "confusable": "a\u2215b/\u2024\u2024/x".encode(),
    "marker": b"[REDACTED:github-token]/x",
}
for name, data in names.items():
    write("names", name, data)
