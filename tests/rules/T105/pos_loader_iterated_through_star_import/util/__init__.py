# stagec fixture: pos_loader_iterated_through_star_import (package init)
# named: on the command line with main.py and util/engine.py
# expect: none in this file
# ----
from .engine import *
