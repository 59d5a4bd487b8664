"""Terminal cuts and filled text are put back into the lines a component printed (engine.wraps + reader)."""

import json

from troubleshoot.engine.reader import read
from troubleshoot.engine.wraps import rejoin_records, soft_break, terminal_width


def texts(paste: str) -> list[str]:
    return [line.text for line in read(paste)]


def test_soft_break_is_told_by_the_next_word_not_fitting() -> None:
    row = "When expanding the plan for module.eks.random_pet.workers_launch_template[0]"  # 76 wide
    assert soft_break(row, "to include new values learned so far during apply, provider")
    assert not soft_break(row[:40], "to include")  # a short row is a line of its own
    assert not soft_break(row, "    indented code or a stack frame")
    assert not soft_break(row + " and some more words to make it long", "x")  # 112 wide: x would fit at 120


def test_terraform_filled_paragraph_is_joined_with_spaces() -> None:
    paste = (
        "When expanding the plan for module.eks.random_pet.workers_launch_template[0]\n"
        "to include new values learned so far during apply, provider\n"
        '"registry.terraform.io/hashicorp/random" changed the planned action from\n'
        "CreateThenDelete to DeleteThenCreate.\n"
    )
    [only] = texts(paste)
    assert "template[0] to include" in only
    assert "action from CreateThenDelete to DeleteThenCreate." in only


def test_a_lone_row_at_a_terminal_width_is_glued_with_a_space() -> None:
    # 72 columns wide, but nothing else in the paste was cut at 72: filled text, not a terminal
    paste = ("Message:          The node was low on resource: memory. Threshold quantity:\n"
             "750Mi, available: 612440Ki. Container api was using 2811340Ki, which exceeds its\n"
             "request of 1Gi.\n")
    [only] = texts(paste)
    assert "exceeds its request of 1Gi." in only


def test_a_terminal_is_recognised_by_cutting_at_one_width_again_and_again() -> None:
    a = "Error: INSTALLATION FAILED: parse error at (alerting-rules/templates/rules.yaml:23): function " \
        '"humanizeDuration" not defined'
    b = "Error: UPGRADE FAILED: cannot patch \"web\" with kind Deployment: Deployment.apps \"web\" is invalid: " \
        "spec.selector: Invalid value"
    cut = "\n".join(line[i:i + 80] for line in (a, b) for i in range(0, len(line), 80))
    rows = cut.split("\n")
    assert terminal_width(rows, lambda r: bool(r.strip()) and not r.startswith("Error:")) == 80
    assert texts(cut) == [a, b]


def test_a_json_record_cut_by_a_terminal_is_parsed_again() -> None:
    record = {"level": "ERROR", "time": "2024-08-04T21:21:43.196Z", "logger": "controller",
              "message": "failed launching nodeclaim", "controller": "nodeclaim.lifecycle",
              "error": "insufficient capacity, all requested instance types were unavailable during launch"}
    line = json.dumps(record, separators=(",", ":"))
    cut = "\n".join(line[i:i + 80] for i in range(0, len(line), 80))
    assert len(cut.split("\n")) > 2
    got = read(cut)
    assert [g.text for g in got] == ["failed launching nodeclaim", record["error"]]
    assert got[0].number == 1 and "controller" in got[0].source


def test_a_json_record_that_was_broken_when_pasted_stays_as_it_was() -> None:
    rows = ['{"level":"error","msg":"reconcile failed","error":"the record was cut off by the', 'next line']
    assert rejoin_records(rows) == []


def test_a_prompt_line_is_never_taken_for_filled_text() -> None:
    paste = ("# Warning: iptables-legacy tables present, use iptables-legacy to see them\n"
             "Chain PREROUTING (policy ACCEPT 232K packets, 20M bytes)\n")
    assert len(texts(paste)) == 2


def test_klog_headers_inside_shipped_records_quotes_and_time_stamps_are_cut() -> None:
    klog = 'E0816 02:53:24.747120       1 proxier.go:440] "Failed to execute iptables-restore"'
    for dressed in (json.dumps({"time": "2025-03-04T10:00:01Z", "stream": "stderr", "log": klog}),
                    json.dumps(klog),
                    f"2025-03-04T10:00:01.123456789Z {klog}",
                    f"2025-03-04T10:00:01.123456789Z stderr F {klog}",
                    f"    {klog}"):
        [got] = read(dressed)
        assert got.text == '"Failed to execute iptables-restore"', dressed
        assert "proxier.go" in got.source
