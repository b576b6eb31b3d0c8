"""Sinks for the outcome stream: colored diffs, the run summary, and report formats."""
