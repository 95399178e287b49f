# named: on the command line with the rest of the case
# ----
from .data import Folder
from .train import main
