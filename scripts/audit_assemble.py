"""Assemble the representative audit (tests/audit/) from the collectors' raw files.

Each collector ran generic searches per source and took the first failure paste of each
result in the order returned (see README, "Answer quality on real pastes"). This script:

* keeps at most 3 pastes of one failure kind and 2 of one issue/page, in collection order;
* gives every paste a stable id (collector + position);
* splits the pastes into a tuning half and a held-out half by a hash of the source URL, so
  pastes from one issue always fall in the same half and the split cannot be steered;
* keeps labels already given in tests/audit/*.yaml (labels are edited there, not here), with the
  reason of any adjudication (a label added where the matcher's answer was found to fix the paste too).

Usage: python scripts/audit_assemble.py tests/audit/raw tests/audit
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import yaml

MAX_PER_KIND = 3
MAX_PER_SOURCE = 2


class _Literal(str):
    pass


def _literal(dumper: yaml.Dumper, value: _Literal) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")


yaml.add_representer(_Literal, _literal)


def half_of(source: str) -> str:
    return "tuning" if int(hashlib.sha1(source.encode()).hexdigest(), 16) % 2 == 0 else "heldout"


def main(raw: Path, out: Path) -> None:
    known: dict[str, dict] = {}
    for half in ("tuning", "heldout"):
        path = out / f"{half}.yaml"
        if path.exists():
            for entry in yaml.safe_load(path.read_text()) or []:
                known[entry["id"]] = entry
    per_kind: dict[str, int] = {}
    per_source: dict[str, int] = {}
    halves: dict[str, list[dict]] = {"tuning": [], "heldout": []}
    for path in sorted(raw.glob("c*.yaml"), key=lambda p: (len(p.stem), p.stem)):  # c2 before c10
        for i, e in enumerate(yaml.safe_load(path.read_text()) or [], 1):
            kind, source = str(e.get("kind", "")).strip(), str(e.get("source", "")).strip()
            text = str(e.get("text", "")).rstrip()
            if not text.strip() or not source:
                continue
            if per_kind.get(kind, 0) >= MAX_PER_KIND or per_source.get(source, 0) >= MAX_PER_SOURCE:
                continue
            per_kind[kind] = per_kind.get(kind, 0) + 1
            per_source[source] = per_source.get(source, 0) + 1
            case_id = f"{path.stem}-{i:03d}"
            old = known.get(case_id, {})
            guess = str(e.get("guess") or "none")
            labels = old.get("labels", [] if guess == "none" else [guess])
            halves[half_of(source)].append({
                "id": case_id, "source": source, "corpus": e.get("corpus", "issues"), "query": e.get("query", ""),
                "rank": e.get("rank"), "topic": old.get("topic", kind), "component": e.get("component", ""),
                "labels": labels, **({"adjudicated": old["adjudicated"]} if old.get("adjudicated") else {}),
                "text": _Literal(text + "\n"),
            })
    out.mkdir(parents=True, exist_ok=True)
    for half, entries in halves.items():
        (out / f"{half}.yaml").write_text(
            f"# Representative audit, {half} half: real pastes, labelled with the articles that fix them\n"
            "# (labels: [] means the KB has no article; topic names the failure). See README.\n"
            + yaml.dump(entries, sort_keys=False, allow_unicode=True, width=1000))
        print(f"{half}: {len(entries)} pastes")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else Path("tests/audit"))
