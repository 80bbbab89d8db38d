"""Output: terminal rendering for people, JSON for programs."""
