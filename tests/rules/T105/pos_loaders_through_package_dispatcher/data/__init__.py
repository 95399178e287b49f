# stagec fixture: pos_loaders_through_package_dispatcher (package init)
# named: on the command line with main.py and data/finetune.py
# expect: none in this file
# ----
from .finetune import build_loader_finetune


def build_loader(config, is_pretrain):
    """Dispatches to the package's own module (`.finetune` is `data.finetune`)
    and hands its tuple back as it is."""
    if is_pretrain:
        raise NotImplementedError
    return build_loader_finetune(config)
