# stagec fixture: t22a pos_yacs_config (defaults module)
# named: on the command line with data.py and main.py
# expect: none in this file (the default it holds is reported where a loader uses it)
# ----
from yacs.config import CfgNode as CN

_C = CN()
_C.DATA = CN()
_C.DATA.BATCH_SIZE = 128
_C.DATA.NUM_WORKERS = 8
_C.TRAIN = CN()
_C.TRAIN.EPOCHS = 300


def get_config():
    return _C.clone()
