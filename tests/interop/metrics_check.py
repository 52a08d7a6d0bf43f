#!/usr/bin/env python3
"""`gnaw-mcp --listen`'s operator endpoints, read as an operator's tools read them.

`/healthz` answers `ok` without a token; `/metrics` (from loopback, no metrics token set) is
parsed by the Prometheus project's own text parser (`prometheus_client.parser`), holds the
families the docs list, counts the calls the interop clients made, and no label value holds a
path (the root's path, or anything with a slash), a query or a token.

    metrics_check.py --base http://127.0.0.1:PORT --root ROOT --token TOKEN
"""

import argparse
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

FAMILIES = {
    "gnaw_mcp_up", "gnaw_mcp_requests", "gnaw_mcp_request_duration_seconds", "gnaw_mcp_workers",
    "gnaw_mcp_worker_starts", "gnaw_mcp_worker_sleeps", "gnaw_mcp_worker_deaths",
    "gnaw_mcp_bounds_hit", "gnaw_mcp_fleet_memory_bytes",
}


# Straight to the server: loopback is what /metrics trusts, so no proxy from the environment.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def get(url):
    with OPENER.open(url, timeout=30) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--token", required=True)
    args = ap.parse_args()
    failures = []

    status, _, body = get(args.base + "/healthz")
    if status != 200 or body.strip() != "ok":
        failures.append(f"/healthz: {status} {body!r}")

    status, ctype, text = get(args.base + "/metrics")
    if status != 200 or not ctype.startswith("text/plain"):
        failures.append(f"/metrics: {status} {ctype}")
    families = {f.name: f for f in text_string_to_metric_families(text)}
    missing = FAMILIES - families.keys()
    if missing:
        failures.append(f"/metrics lacks {sorted(missing)}; has {sorted(families)}")
    served = sum(s.value for s in families.get("gnaw_mcp_requests", []).samples
                 if s.name.endswith("_total") and s.labels.get("status") == "200") \
        if "gnaw_mcp_requests" in families else 0
    if served < 1:
        failures.append("/metrics counts no request served with 200")
    for family in families.values():
        for sample in family.samples:
            for key, value in sample.labels.items():
                if "/" in value and key != "le" or args.root in value or args.token in value:
                    failures.append(f"{sample.name}: label {key}={value!r} names a path or token")
    for f in failures:
        print("FAIL", f)
    print(f"metrics: {len(families)} families, {sum(len(f.samples) for f in families.values())} "
          f"samples, {int(served)} requests served; {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
