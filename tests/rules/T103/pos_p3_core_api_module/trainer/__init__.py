"""Package `trainer` (stagec fixture project p3). `python3 -m trainer` runs trainer/__main__.py."""
