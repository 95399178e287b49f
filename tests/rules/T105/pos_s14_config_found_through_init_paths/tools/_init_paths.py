# stagec fixture: pos_s14_config_found_through_init_paths (the path setup; HRNet's shape)
# found through the entry's `import _init_paths`, not named
# expect: none in this file
# ----
import os.path as osp
import sys


def add_path(path):
    if path not in sys.path:
        sys.path.insert(0, path)


this_dir = osp.dirname(__file__)

lib_path = osp.join(this_dir, "..", "lib")
add_path(lib_path)
