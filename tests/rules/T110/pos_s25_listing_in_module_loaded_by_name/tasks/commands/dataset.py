# named: on the command line with the rest of the case
# expect:
#   T110 at 33:31 the background recordings, in directory order, are appended to the samples
#        a subclass keeps; its `__getitem__` hands the index to the base's, which reads them
#        by position.
# ----
from pathlib import Path

from torch.utils.data import Dataset

CLASSES = ["yes", "no", "_unknown_", "_silence_"]


class CommandsBase(Dataset):
    def __init__(self):
        self.class2index = {c: i for i, c in enumerate(CLASSES)}
        self.data = []

    def __getitem__(self, idx):
        class_name, audio_path = self.data[idx]
        return str(audio_path), self.class2index[class_name]

    def __len__(self):
        return len(self.data)


class CommandsDataset(CommandsBase):
    def __init__(self, data_list, **kwargs):
        super().__init__()
        data = [(c, p) if c in self.class2index else ("_unknown_", p) for c, p in data_list]
        data += [
            ("_silence_", audio_path)
            for audio_path in Path(kwargs["root"], "_background_noise_").glob("*.wav")
        ]
        counts = {c: 0 for c in CLASSES}
        for c, _ in data:
            counts[c] += 1
        self.sample_weights = [len(data) / counts[c] for c, _ in data]
        self.data = data

    def __getitem__(self, idx):
        path, label = super().__getitem__(idx)
        return path, label
