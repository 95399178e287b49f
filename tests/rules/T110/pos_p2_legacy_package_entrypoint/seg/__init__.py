"""Tile segmentation package (stagec fixture project p2). Nothing to report in this file."""

__all__ = ["trial", "nets", "data"]
