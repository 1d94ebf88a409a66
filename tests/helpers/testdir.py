"""Helpers for `ptosim test` runs in tests."""


def by_case(run) -> dict:
    """Case name -> CaseReport of a FolderRun."""
    return {r.case: r for r in run.reports}
