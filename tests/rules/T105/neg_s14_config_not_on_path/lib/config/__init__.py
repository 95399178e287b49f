# stagec fixture: neg_s14_config_not_on_path (the config package; not named)
# expect: none in this file
# ----
from .default import _C as config  # noqa: F401
from .default import update_config  # noqa: F401
