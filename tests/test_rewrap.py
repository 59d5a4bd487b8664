"""The wrappers dress pastes the way they arrive, and evaluate_matcher --wrappers reports on them."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from troubleshoot.engine.reader import read
from troubleshoot.rewrap import WRAPPERS, log_like, plain_message

BY_NAME = {w.name: w for w in WRAPPERS}
LOG = ('{"level":"ERROR","message":"failed launching nodeclaim","error":"insufficient capacity"}\n'
       "E0522 16:56:34.117350       5 proxier.go:1538] Failed to execute iptables-restore: exit status 1\n")
DESCRIBE = "Events:\n  Type     Reason   Age  From     Message\n  Warning  Failed   1m   kubelet  Error: boom\n"


def test_prefixes_and_records_fit_only_log_like_pastes() -> None:
    assert log_like(LOG) and not log_like(DESCRIBE)
    assert not log_like("$ kubectl get pods\nNAME   READY   STATUS\n")
    assert plain_message("Error: cannot re-use a name that is still in use") and not plain_message(LOG)
    assert not BY_NAME["journal"].applies(DESCRIBE) and BY_NAME["journal"].applies(LOG)


def test_cuts_and_fills_keep_every_character_and_respect_the_width() -> None:
    long = "Error: " + " ".join(f"word{i}" for i in range(60))
    cut = BY_NAME["cut-80"].apply(long)
    assert "".join(cut.split("\n")) == long and max(map(len, cut.split("\n"))) == 80
    filled = BY_NAME["fill-80"].apply(long)
    assert " ".join(filled.split("\n")) == long and max(map(len, filled.split("\n"))) <= 80


def test_every_wrapper_is_undone_by_the_reader_on_a_log_line() -> None:
    line = "E0522 16:56:34.117350       5 proxier.go:1538] Failed to execute iptables-restore: exit status 1"
    want = [t.text for t in read(line)]
    for wrapper in WRAPPERS:
        got = " ".join(t.text for t in read(wrapper.apply(line)))
        if wrapper.name.startswith("cut-"):
            # one lone cut could as well be filled text: it is glued back with a space (see engine.wraps)
            assert want[0].replace(" ", "") == got.replace(" ", ""), wrapper.name
        else:
            assert want[0] in got, wrapper.name


def test_json_records_carry_the_line_as_a_shipper_would() -> None:
    dressed = BY_NAME["json-lines"].apply("panic: boom\n\nnext")
    first, blank, last = dressed.split("\n")
    assert json.loads(first)["log"] == "panic: boom" and blank == "" and json.loads(last)["log"] == "next"


@pytest.mark.django_db
def test_wrappers_report_names_each_wrapper(shipped_kb, tmp_path) -> None:
    case = tmp_path / "image-pull-backoff"
    case.mkdir()
    (case / "one.txt").write_text(
        'Warning  Failed  12s  kubelet  Failed to pull image "nginx:latestt": rpc error: code = NotFound '
        'desc = failed to pull and unpack image "docker.io/library/nginx:latestt": failed to resolve reference '
        '"docker.io/library/nginx:latestt": docker.io/library/nginx:latestt: not found\n')
    out = StringIO()
    call_command("evaluate_matcher", "--cases", str(tmp_path), "--wrappers", "cut-80,fill-80", stdout=out)
    text = out.getvalue()
    assert "cut-80" in text and "fill-80" in text and "journal" not in text
    assert "1.000 (1/1)" in text


@pytest.mark.django_db
def test_an_unknown_wrapper_is_named_in_the_error(shipped_kb) -> None:
    with pytest.raises(CommandError, match="unknown wrapper.*nope.*known: cut-80"):
        call_command("evaluate_matcher", "--wrappers", "nope")
