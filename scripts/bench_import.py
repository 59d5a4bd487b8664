"""Benchmark (not a test): import N generated articles into a fresh, temporary database and
index, then import them again (nothing changes), and print the times.

    .venv/bin/python scripts/bench_import.py [--articles 3000]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "troubleshoot" / "kb" / "en" / "untolerated-taint.md"


def generate(folder: Path, count: int) -> None:
    source = TEMPLATE.read_text(encoding="utf-8")
    for i in range(count):
        text = re.sub(r"^slug: .*$", f"slug: generated-{i:05d}", source, count=1, flags=re.M)
        # distinct symptom texts per article, as in a real knowledge base
        text = text.replace("had untolerated taint {", f"had untolerated taint {{generated{i}/")
        (folder / f"generated-{i:05d}.md").write_text(text, encoding="utf-8")


def manage(env: dict[str, str], *args: str) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
                            text=True, check=True)
    lines = result.stdout.strip().splitlines()
    return time.perf_counter() - started, lines[-1] if lines else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kb-bench-import-") as tmp:
        folder = Path(tmp) / "kb"
        folder.mkdir()
        generate(folder, args.articles)
        env = {**os.environ, "KB_DATA_DIR": str(Path(tmp) / "data"), "DJANGO_SETTINGS_MODULE": "kbapp.settings"}
        env.pop("DATABASE_URL", None)
        manage(env, "migrate", "--noinput", "-v0")
        first, line = manage(env, "import_kb", str(folder))
        print(f"first import of {args.articles} articles (database and search index): {first:.1f} s  [{line}]")
        again, line = manage(env, "import_kb", str(folder))
        print(f"re-import, nothing changed: {again:.1f} s  [{line}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
