from tfmodernize.cli import main

main()
