"""evaluate_matcher --leave-out matches each labelled paste with a KB built without its own article."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_leave_out_matches_each_paste_without_its_own_article(shipped_kb, tmp_path, settings) -> None:
    cases = Path(settings.BASE_DIR) / "tests" / "matcher_cases"
    for slug, name in [("karpenter-iam-denied", "create-instance-profile.txt"),
                       ("image-pull-backoff", "describe-kind-errimageneverpull.txt")]:
        (tmp_path / slug).mkdir()
        (tmp_path / slug / name).write_bytes((cases / slug / name).read_bytes())
    out, err = StringIO(), StringIO()
    call_command("evaluate_matcher", "--cases", str(tmp_path), "--leave-out", "--verbose-failures",
                 stdout=out, stderr=err)
    text = out.getvalue()
    # without Karpenter's own IAM article the generic AWS-denial article answers it; nothing else knows the
    # pull of an image that must never be pulled
    assert "2 pastes matched without their own article(s): 1 still got a confident answer (0.500)" in text
    assert "karpenter-iam-denied/create-instance-profile.txt: without [karpenter-iam-denied] " \
           "got best=aws-authorization-denied-controller" in text
    assert "2/2 knowledge bases built" in err.getvalue()
