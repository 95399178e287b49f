# stagec fixture: pos_yacs_subclass_config (defaults module)
# named: on the command line with data.py and main.py
# expect: none in this file (the default it holds is reported where a loader uses it)
# ----
from fvcore.common.config import CfgNode as _CfgNode


class CN(_CfgNode):
    """The project's own node (ResNeSt's shape): reads its files through a path manager."""

    @classmethod
    def _open_cfg(cls, filename):
        return open(filename, "r")


_C = CN()
_C.DATA = CN()
_C.DATA.BATCH_SIZE = 128
_C.DATA.NUM_WORKERS = 8
_C.TRAIN = CN()
_C.TRAIN.EPOCHS = 300


def get_config():
    return _C.clone()


def load_config(path, opts):
    """The defaults, then the run's YAML file and command line (SlowFast's and
    Swin's shape): NUM_WORKERS stays 8 unless the file or command line sets it."""
    config = get_config()
    config.merge_from_file(path)
    if opts:
        config.merge_from_list(opts)
    return config
