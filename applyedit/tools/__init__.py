"""Developer tools around the product path: the bench and the eval runners, the warm-server bench,
replaying recorded passes, and the bench chart. Their commands are the CLI's (cli/toolcmd.py), which
imports this package only when `bench` or `eval` runs; a user applying edits never imports it.
"""
