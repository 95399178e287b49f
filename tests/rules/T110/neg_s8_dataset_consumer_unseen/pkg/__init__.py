# named: on the command line with the rest of the case
# ----
from .data import Preview, Sorted, preview
from .train import main
