# stagec fixture: h06_neg_sorted_variants
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 audio.py",
#          resources.slots_per_trial: 16
# runtime: torch.distributed
# expect: no finding.
#   Every listing that becomes a sample order is sorted first: sorted(os.listdir(...)),
#   sorted(glob.glob(...)), sorted(Path.rglob(...)), and a list that is sorted in place
#   (clips.sort()) before anything indexes it.
# ----
import glob
import os
import pathlib

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Clips(Dataset):
    def __init__(self, root: str):
        clips = [os.path.join(root, f) for f in os.listdir(root) if f.endswith(".flac")]
        clips.sort()
        self.clips = clips
        self.labels = sorted(os.listdir(os.path.join(root, "labels")))
        self.noise = sorted(glob.glob(os.path.join(root, "noise", "*.wav")))
        self.rirs = sorted(pathlib.Path(root, "rir").rglob("*.npy"))

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, i):
        wave = torch.randn(16000)
        noise = torch.randn(16000) * (len(self.noise[i % len(self.noise)]) > 0)
        return wave + 0.1 * noise, i % max(1, len(self.labels))


def main(root: str = "/mnt/speech", epochs: int = 4) -> None:
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    ds = Clips(root)
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=16, sampler=sampler, num_workers=4)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16000, 35).cuda())
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for wave, label in loader:
            loss = torch.nn.functional.cross_entropy(model(wave.cuda()), label.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
