# stagec fixture: pos_config_object_reexported (the package re-exports the config object)
# named: on the command line with train.py, lib/__init__.py and lib/config/default.py
# expect: none in this file
# ----
from .default import _C as cfg
from .default import update_config
