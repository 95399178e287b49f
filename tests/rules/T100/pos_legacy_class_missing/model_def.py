# stagec fixture: t100_pos_legacy_class_missing: defines MNistTrial, not MnistTrial.
# expect: no finding in this file.
# ----
from determined.pytorch import PyTorchTrial


class MNistTrial(PyTorchTrial):
    pass
