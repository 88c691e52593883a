from applyedit.cli import main

main()
