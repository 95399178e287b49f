# named: on the command line with the rest of the case
# ----
from .data import Folder, images_loader
from .trainer import Trainer
