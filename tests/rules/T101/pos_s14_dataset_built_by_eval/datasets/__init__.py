# stagec fixture: pos_s14_dataset_built_by_eval (the datasets package)
# named: on the command line with train.py
# expect: none in this file
# ----
from .cityscapes import Cityscapes  # noqa: F401
