"""The course's registry: steps.csv, the one list of steps, and its readers (steps, stamped_csv; README.md here)."""
