"""Robustness: arbitrary text never breaks the engine; large sessions are handled."""

from __future__ import annotations

import logging
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from troubleshoot.kubectl import analyze_text, split_sections
from troubleshoot.kubectl.synthetic import generate_session

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kubectl"
_FIXTURE_LINES = [line for p in sorted(FIXTURES.iterdir())
                  for line in p.read_text(encoding="utf-8").split("\n")]

# Lines that look like kubectl output, shuffled and cut, are the nastiest input.
kubectl_like = st.lists(st.sampled_from(_FIXTURE_LINES), max_size=60).map("\n".join)
mangled = st.tuples(kubectl_like, st.integers(0, 4000), st.integers(0, 4000)).map(
    lambda t: t[0][min(t[1], t[2]):max(t[1], t[2])])
prompts = st.sampled_from(["$ kubectl get pods -A", "➜  ~ kubectl describe pod x", "PS> kubectl logs x",
                           "user@host:~$ kubectl get events", "$", "Name:   x", "apiVersion: v1", "{", "---",
                           "NAME   READY   STATUS   RESTARTS   AGE", "Events:", "  Type  Reason  Age  From  Message"])
mixed = st.lists(st.one_of(prompts, st.text(max_size=80), st.sampled_from(_FIXTURE_LINES)), max_size=40).map(
    "\n".join)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def _check(text: str) -> None:
    """The engine swallows parser/analyser exceptions (and logs them) so a
    user never sees a crash; here any such logged exception is a failure."""
    handler = _Collect()
    logger = logging.getLogger("troubleshoot.kubectl")
    logger.addHandler(handler)
    try:
        report = analyze_text(text)
    finally:
        logger.removeHandler(handler)
    assert not handler.records, handler.records[0].getMessage()
    report.to_dict()
    for f in report.findings:
        assert f.severity in ("critical", "warning", "info")
        assert f.problem and f.kind and (f.name or "(object not in the upload)" in f.detail)
    for s in report.sections:
        assert s.start_line >= 1


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_arbitrary_text_never_raises(text):
    _check(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kubectl_like)
def test_shuffled_kubectl_lines_never_raise(text):
    _check(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mangled)
def test_truncated_output_never_raises(text):
    _check(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed)
def test_prompts_and_noise_never_raise(text):
    _check(text)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=2000))
def test_sections_cover_only_input_lines(text):
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for section in split_sections(text):
        first = section.text.split("\n")[0]
        # sections may be dedented, so compare stripped text
        assert lines[section.start_line - 1].strip() == first.strip()


def test_generate_session_is_deterministic_and_sized():
    a = generate_session(200_000, seed=3)
    assert a == generate_session(200_000, seed=3)
    assert a != generate_session(200_000, seed=4)
    assert len(a.encode("utf-8")) >= 200_000


def test_ten_megabyte_session_is_analysed():
    text = generate_session(10_000_000, seed=0)
    assert len(text.encode("utf-8")) >= 10_000_000
    marks: list[float] = []
    report = analyze_text(text, progress=lambda f, m: marks.append(f))
    assert marks[-1] == 1.0
    assert report.resources["Pod"] > 1000
    assert report.resources["Node"] >= 10
    assert report.resources["Event"] > 1000
    problems = {f.problem for f in report.findings}
    assert {"CrashLoopBackOff.OOMKilled", "FailedScheduling.UntoleratedTaint", "ImagePull.NotFound",
            "CreateContainerConfigError.MissingSecret", "NodeClaim.NotRegistered", "Node.NotReady"} <= problems
    # nothing structured was left unparsed
    assert "apiVersion: v1" not in report.unparsed_text


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["spec", "status", "metadata", "name", "namespace", "conditions", "type", "status",
                         "containerStatuses", "state", "waiting", "lastState", "terminated", "reason", "message",
                         "exitCode", "taints", "tolerations", "key", "effect", "items", "involvedObject",
                         "template", "nodeClassRef", "volumes", "persistentVolumeClaim", "claimName", "labels"]),
        children, max_size=5),
    max_leaves=25)
k8s_objects = st.fixed_dictionaries(
    {"kind": st.sampled_from(["Pod", "Node", "NodeClaim", "NodePool", "EC2NodeClass", "PersistentVolumeClaim",
                              "Deployment", "ReplicaSet", "Event", "List", "PodList"]),
     "metadata": st.one_of(json_values, st.fixed_dictionaries({"name": st.text(min_size=1, max_size=10)}))},
    optional={"spec": json_values, "status": json_values, "items": st.lists(json_values, max_size=3),
              "involvedObject": json_values})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k8s_objects)
def test_malformed_objects_never_raise(obj):
    import json

    _check(json.dumps(obj, indent=2))
