"""A FailedScheduling event that a later Scheduled event resolved is history, not the failure."""

from __future__ import annotations

from troubleshoot.engine.rank import scheduled_after

FAILED = "  Warning  FailedScheduling  48s  default-scheduler  0/3 nodes are available: 3 Insufficient cpu."
SCHEDULED = "  Normal   Scheduled         40s  default-scheduler  Successfully assigned web/api-0 to ip-10-0-1-7"
MOUNT = "  Warning  FailedMount       9s   kubelet            MountVolume.MountDevice failed for volume \"data\""


def test_scheduling_failures_before_a_scheduled_event_are_history() -> None:
    assert scheduled_after([FAILED, FAILED, SCHEDULED, MOUNT]) == 2


def test_a_failure_after_the_last_scheduled_event_is_current() -> None:
    assert scheduled_after([SCHEDULED, FAILED]) is None
    assert scheduled_after([FAILED]) is None
    assert scheduled_after([FAILED, SCHEDULED, FAILED, SCHEDULED]) == 3
