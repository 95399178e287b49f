# stagec fixture: s26 pos_tyro_dataclass_options (the options class)
# context: imported by main.py; not named on the command line.
# expect: nothing
# ----
from dataclasses import dataclass


@dataclass
class Options:
    batch_size: int = 8
    num_workers: int = 8
    num_epochs: int = 30
    lr: float = 4e-4
