"""The course's tests; the Python ones run from the repository root as `python3 -m tests.FOLDER.NAME`."""
