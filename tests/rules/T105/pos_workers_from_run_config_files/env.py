# stagec fixture: pos_workers_from_run_config_files (the attribute dict the configs are read into)
# named: on the command line with train.py
# expect: none in this file
# ----
class AttrDict(dict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.__dict__ = self
