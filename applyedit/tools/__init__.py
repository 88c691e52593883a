"""Developer tools around the product path: the bench and the eval runners and their commands, the
warm-server bench, replaying recorded passes, and the bench chart. A user applying edits never
imports this package.
"""
