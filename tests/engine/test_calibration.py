"""Calibration guards found on real unrelated pastes."""

from __future__ import annotations

from troubleshoot.engine.rank import MEDIUM, article_score
from troubleshoot.engine.reader import is_record_start


def test_slash_dated_and_time_only_log_lines_start_new_records():
    # nginx / Go log lines: a window must not glue separate records into one phrase match.
    assert is_record_start("2024/05/14 16:21:09 [error] 1187#1187: *90433 connect() failed")
    assert is_record_start("16:21:09 worker started")
    assert not is_record_start("continued text of a wrapped message")


def test_a_weak_fuzzy_only_match_stays_low():
    assert article_score([(0.9, 1)], fuzzy_only=True, fuzzy_strength=0.7) < MEDIUM
    assert article_score([(0.9, 1)], fuzzy_only=True, fuzzy_strength=0.8) >= MEDIUM
    assert article_score([(0.9, 1)], fuzzy_only=False) >= MEDIUM


def test_what_the_paste_names_does_not_lift_a_weak_near_miss_to_medium():
    # a weak fuzzy-only article is capped below MEDIUM, and the owner / agreement bonus or the text relevance
    # fused in after the cap must not lift it over (on a real paste that made other wordings confident answers)
    from troubleshoot.engine.rank import OWNER_BONUS, STRONG_FUZZY, fuse, fuzzy_cap

    capped = article_score([(0.9, 1)], fuzzy_only=True, fuzzy_strength=0.7)
    assert fuse(capped, rel_share=1.0, conflict=False, bonus=OWNER_BONUS) >= MEDIUM  # the cap alone was not enough
    assert fuse(capped, rel_share=1.0, conflict=False, bonus=OWNER_BONUS, cap=fuzzy_cap(True, 0.7)) < MEDIUM
    assert fuzzy_cap(True, STRONG_FUZZY) >= MEDIUM and fuzzy_cap(False, 0.0) == 1.0


def test_kubectl_get_rows_are_never_glued_onto_a_long_header():
    from troubleshoot.engine.reader import read

    table = ("NAMESPACE     NAME                                READY   STATUS      RESTARTS        AGE\n"
             "default       pdf-renderer-58b7c9d6f-2hwnm        0/1     OOMKilled   7 (2m11s ago)   34m\n"
             "default       web-6d4cf56db6-x7k2p                1/1     Running     0               2d\n")
    assert [line.number for line in read(table)] == [1, 2, 3]


def test_describe_fields_of_one_block_are_matched_together():
    from troubleshoot.engine.matcher import Matcher
    from troubleshoot.engine.types import Signature

    matcher = Matcher([Signature("oom:en:0", "oom", "en", "Last State: Terminated Reason: OOMKilled Exit Code: 137",
                                 pattern=r"Reason:\s+OOMKilled\s+Exit Code:\s+(?P<code>137)")])
    paste = ("    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n"
             "      Started:      Mon, 20 May 2024 10:00:00 +0000\n")
    result = matcher.match(paste)
    assert result.best is not None and result.best.topic == "oom"
    assert result.best.captures.get("code") == "137"


def test_weak_evidence_never_ranks_below_relevance_alone():
    # A bare generic event (weight 0.3 BackOff) scores under the 0.3 a topic gets from its text relevance
    # alone; with its evidence it must still come first, and stay LOW.
    from troubleshoot.engine.rank import fuse, relevance_only

    weak = fuse(0.17, rel_share=1.0, conflict=False)
    assert weak > relevance_only(1.0, conflict=False)  # the best-relevance topic, with a symptom seen
    assert weak < MEDIUM
    assert fuse(0.17, rel_share=0.48, conflict=False) > relevance_only(0.48, conflict=False)
    # evidence that is already stronger is untouched by the floor
    assert fuse(0.8, rel_share=0.5, conflict=False) == 0.8


def test_a_near_miss_on_a_message_its_fields_define_is_never_strong():
    # the symptom is defined by a structured condition (the CRD's API group): another kind and group in the same
    # words is another failure, however many of its words a fuzzy match finds
    from troubleshoot.engine.matcher import Matcher
    from troubleshoot.engine.types import Signature

    tgb = Signature("alb:en:0", "alb", "en", 'no matches for kind "TargetGroupBinding" in version "elbv2.k8s.aws/v1beta1"',
                    weight=2.0, when=(("crd.version", r"elbv2\.k8s\.aws/v\w+"),))
    other = Signature("other:en:0", "other", "en", "Back-off restarting failed container", weight=0.3)
    matcher = Matcher([tgb, other])
    own = matcher.match('error: unable to recognize "tgb.yaml": no matches for kind "TargetGroupBinding" in version '
                        '"elbv2.k8s.aws/v1beta1"')
    assert own.best is not None and own.best.topic == "alb"
    near = matcher.match('error: unable to recognize "deploy.yaml": no matches for kind "Deployment" in version '
                         '"extensions/v1beta1"')
    assert near.best is None
