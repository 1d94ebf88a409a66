"""Analyses over a run that produce findings (happens-before hazards, live tile overlap)."""
