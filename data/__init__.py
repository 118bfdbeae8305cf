"""Data files of the companion; see README.md in this directory."""
