from __future__ import annotations

from troubleshoot.engine.condense import ERROR, INFO, NEUTRAL, WARNING, condense, query_text, severity
from troubleshoot.engine.normalize import normalize
from troubleshoot.engine.reader import read


def build(text: str):
    lines = read(text)
    return lines, condense(lines, [normalize(l.text) for l in lines])


def test_repeated_lines_become_one_template_with_count_and_line_numbers() -> None:
    text = (
        "\n".join(
            f'2024-05-21T10:00:{i:02d}Z Readiness probe failed: Get "http://10.0.1.{i}:8080/readyz": '
            "context deadline exceeded"
            for i in range(40)
        )
        + "\nsomething else"
    )
    lines, templates = build(text)
    assert len(templates) == 2
    t = templates[0]
    assert t.count == 40
    assert [lines[i].number for i in t.lines] == [1, 2, 3, 4, 5]  # first few kept for evidence
    assert lines[t.last].number == 40
    assert templates[1].count == 1


def test_severity_grades() -> None:
    assert severity("E0521 10:00:00.123456 1 x.go:1] boom") == ERROR
    assert severity("W0521 10:00:00.123456 1 x.go:1] hmm") == WARNING
    assert severity("I0521 10:00:00.123456 1 x.go:1] fine") == INFO
    assert severity('{"level":"ERROR","message":"x"}') == ERROR
    assert severity('{"level":"info","message":"failed but info"}') == INFO
    assert severity("time=1 level=error msg=x") == ERROR
    assert severity("  Warning  FailedScheduling  3m  default-scheduler  0/3 nodes") == WARNING
    assert severity("  Normal   Scheduled  3m  default-scheduler  assigned") == INFO
    # a Normal event that reports a failure is not routine chatter (but still below a Warning)
    assert severity("  Normal   NotTriggerScaleUp  7s  cluster-autoscaler  pod didn't trigger scale-up: "
                    "1 in backoff after failed scale-up") == NEUTRAL
    assert severity("Error: creating EKS Node Group") == ERROR
    assert severity("panic: runtime error: invalid memory address") == ERROR
    assert severity("FATAL: password authentication failed") == ERROR
    assert severity("just a line") == NEUTRAL


def test_five_megabyte_paste_keeps_its_tail() -> None:
    filler = "2024-05-21T10:00:00Z INFO reconciled nodepool default in 12ms\n" * 81_000  # ~5 MB
    tail = "the very last line: InsufficientInstanceCapacity for m5.large"
    lines, templates = build(filler + tail)
    assert len(filler) + len(tail) > 5_000_000
    assert len(templates) == 2
    assert lines[templates[-1].first].text == tail
    assert lines[templates[-1].first].number == 81_001


def test_query_text_puts_errors_first_and_is_bounded() -> None:
    lines, templates = build("all good\nE0521 10:00:00.1 1 a.go:1] real problem here\n" + "x " * 5000)
    q = query_text(templates, lines, max_chars=300)
    assert q.startswith("real problem here")
    assert len(q) <= 300
