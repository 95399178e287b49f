# named: on the command line with the rest of the case
# ----
import glob

from torch.utils.data import Dataset


class Folder(Dataset):
    """Built by the user's own script; this package never shards samples."""

    def __init__(self, root):
        self.files = glob.glob(root + "/*.npy")

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        return self.files[i]
