import sys
from .pages import main
sys.exit(main())
