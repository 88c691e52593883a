"""The command line: the app and the apply command (main.py), what every command shares (parts.py),
the apply command's inputs, writes and report (io.py), the other commands (modelcmd.py, servecmd.py,
toolcmd.py: `bench` and `eval`, whose tools load only when they run), and the progress line
(progress.py). Nothing below the CLI imports it.
"""
