import sys

from magnet_exp.cli import main

sys.exit(main())
