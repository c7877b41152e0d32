"""Talia as an LTI 1.3 tool: registration, launch, deep linking, AGS scores, NRPS rosters."""
