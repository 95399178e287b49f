# stagec fixture: pos_s14_config_found_through_init_paths (the config package, on the path
# _init_paths sets up; not named)
# expect: none in this file
# ----
from .default import _C as config  # noqa: F401
from .default import update_config  # noqa: F401
