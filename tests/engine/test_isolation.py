"""The engine must stay importable without Django or the rest of the project."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "troubleshoot" / "engine"


def test_no_django_or_project_imports() -> None:
    for path in ENGINE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                assert not name.startswith("django"), (path.name, name)
                assert not name.startswith("troubleshoot") or name.startswith("troubleshoot.engine"), (path.name, name)


def test_modules_stay_small() -> None:
    for path in ENGINE.glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 420, path.name


def test_import_does_not_load_django() -> None:
    code = "import sys, troubleshoot.engine as e; e.Matcher([]); assert 'django' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ENGINE.parents[1])
