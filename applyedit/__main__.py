from applyedit.cli.main import main

main()
