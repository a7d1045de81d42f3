"""baremark-report: compare baremark results from many machines.

The pipeline runs one way, one module per step:
  extract   serial captures and .jsonl files -> records (with line numbers, bad lines counted)
  fleet     records -> runs -> one run per machine -> rows per table (passes folded)
  outliers  rows -> peer medians and flags
  tables    rows -> aligned text, CSV, JSON
  cli       options, reading files, exit status
Standard library only, so it runs on any admin machine with Python 3.
"""
