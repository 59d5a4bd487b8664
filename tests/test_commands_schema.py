"""Commands that need the database say so, instead of a traceback, when it has not been migrated."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("command", [["match", "-"], ["import_kb"], ["evaluate_matcher"]])
def test_unmigrated_database_gives_a_clear_error(tmp_path, command):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")}
    env["KB_DATA_DIR"] = str(tmp_path)
    result = subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, input=b"x509: bad\n",
                            capture_output=True, timeout=120)
    stderr = result.stderr.decode()
    assert result.returncode == 1
    assert "is not migrated" in stderr and "manage.py migrate" in stderr
    assert "Traceback" not in stderr
