"""Code that produces the shipped artifacts (run from a checkout, `python -m training....`); not part of the wheel:
the served package `reward` only loads and verifies what these scripts build."""
