"""version_check against the version ranges of the shipped articles."""

from __future__ import annotations

import pytest

from troubleshoot.versions import AFFECTED_PRIOR, FIXED_PRIOR, Entry, describe, status, version_check, version_prior

# The entries as the shipped articles give them.
CRASHLOOP_111 = Entry("Karpenter", "1.1.1", "", "start-up cache synchronisation problems reported")
CRASHLOOP_034 = Entry("Karpenter", ">=0.34.0 <0.36.0", "", "FATAL Checking EC2 API connectivity")
FARGATE_MODULE = Entry("Terraform AWS EKS module", ">=20.4.0 <20.8.3", "20.8.3", "no compute-type toleration")
HELM_PROVIDER = Entry("Helm", "terraform-provider-helm >=3.0.0", "", "attribute syntax")
ACCESS_ENTRIES = Entry("EKS", "platform versions with access entries (Kubernetes 1.23+ from late 2023)")
OLD_TAINT_WORDING = Entry("Kubernetes", ">=1.18 <1.25", "", "had taint {key: value}")


@pytest.mark.parametrize("entry, version, expected", [
    (CRASHLOOP_111, "1.1.1", "affected"),
    (CRASHLOOP_111, "1.2.3", "unaffected"),
    (CRASHLOOP_034, "0.35.1", "affected"),
    (CRASHLOOP_034, "0.36.0", "unaffected"),
    (FARGATE_MODULE, "20.5.0", "affected"),
    (FARGATE_MODULE, "20.8.3", "fixed"),
    (FARGATE_MODULE, "20.24.0", "fixed"),
    (FARGATE_MODULE, "19.21.0", "unaffected"),
    (OLD_TAINT_WORDING, "1.24.17", "affected"),
    (OLD_TAINT_WORDING, "1.29", "unaffected"),      # an EKS cluster version: every 1.29.x
    (OLD_TAINT_WORDING, "1.24", "affected"),
    (ACCESS_ENTRIES, "1.29", "unknown"),            # free text cannot be compared
])
def test_status_of_a_version_against_an_article_range(entry, version, expected):
    assert status(version, entry.affected, entry.fixed_in) == expected


def test_an_api_version_that_spans_both_sides_of_a_range_is_unknown():
    # karpenter.sh/v1beta1 was served from 0.32 to 1.0: some of those releases are in 0.34-0.36, some not
    assert status(">=0.32.0 <1.1.0", CRASHLOOP_034.affected, "") == "unknown"
    assert status(">=0.32.0 <1.1.0", CRASHLOOP_111.affected, "") == "unaffected"


def test_fixed_in_without_a_range_means_every_earlier_release():
    assert status("1.4.0", "", "1.5.0") == "affected"
    assert status("1.5.0", "", "1.5.0") == "fixed"
    assert status(">=1.4.0 <1.6.0", "", "1.5.0") == "unknown"


def test_rows_have_the_documented_shape_and_skip_components_with_no_known_version():
    rows = version_check([CRASHLOOP_111, CRASHLOOP_034, FARGATE_MODULE], {"Karpenter": "1.1.1"})
    assert rows == [
        {"component": "Karpenter", "version": "1.1.1", "status": "affected", "affected": "1.1.1", "fixed_in": "",
         "note": "start-up cache synchronisation problems reported"},
        {"component": "Karpenter", "version": "1.1.1", "status": "unaffected", "affected": ">=0.34.0 <0.36.0",
         "fixed_in": "", "note": "FATAL Checking EC2 API connectivity"},
    ]
    assert version_check([CRASHLOOP_111], {}) == []


def test_a_range_naming_a_part_of_the_component_uses_that_parts_version():
    assert version_check([HELM_PROVIDER], {"Helm": "3.14.0"}) == []
    (row,) = version_check([HELM_PROVIDER], {"terraform-provider-helm": "2.15.0"})
    assert (row["component"], row["version"], row["status"]) == ("Helm", "2.15.0", "unaffected")
    (row,) = version_check([HELM_PROVIDER], {"terraform-provider-helm": "3.0.2"})
    assert row["status"] == "affected"


def test_component_names_match_whatever_their_case_and_kubelet_stands_for_kubernetes():
    assert version_check([CRASHLOOP_111], {"karpenter": "1.1.1"})[0]["status"] == "affected"
    assert version_check([OLD_TAINT_WORDING], {"kubelet": "1.23.4"})[0]["status"] == "affected"


def test_the_prior_is_small_and_fixed_outweighs_affected():
    assert version_prior([{"status": "affected"}]) == AFFECTED_PRIOR > 0
    assert version_prior([{"status": "affected"}, {"status": "fixed"}]) == FIXED_PRIOR < 0
    assert version_prior([{"status": "unknown"}, {"status": "unaffected"}]) == 0.0
    assert max(abs(AFFECTED_PRIOR), abs(FIXED_PRIOR)) <= 0.05


def test_describe_says_what_you_run_and_where_it_was_fixed():
    (row,) = version_check([FARGATE_MODULE], {"Terraform AWS EKS module": "20.5.0"})
    assert describe(row) == "You run Terraform AWS EKS module 20.5.0: affected, fixed in 20.8.3."
    (row,) = version_check([FARGATE_MODULE], {"Terraform AWS EKS module": "20.9.0"})
    assert describe(row) == "You run Terraform AWS EKS module 20.9.0: fixed in 20.8.3."
    (row,) = version_check([CRASHLOOP_034], {"Karpenter": "1.1.1"})
    assert describe(row) == "You run Karpenter 1.1.1: not affected (>=0.34.0 <0.36.0)."
