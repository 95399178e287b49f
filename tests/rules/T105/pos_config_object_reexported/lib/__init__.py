# stagec fixture: pos_config_object_reexported (package)
# named: on the command line with train.py, lib/config/__init__.py and lib/config/default.py
# expect: none in this file
# ----
