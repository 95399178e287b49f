# stagec fixture: h06_pos_listdir_dataset_sampler
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train_det.py",
#          resources.slots_per_trial: 16 (two or more nodes)
# runtime: torch.distributed, DistributedSampler over a file-list dataset
# expect:
#   T110 at 26:34 the os.listdir() result, unsorted, becomes the dataset's
#        sample order (self.files[i] in __getitem__); DistributedSampler gives each rank a set of
#        *indices*, so ranks whose listing order differs (another node, another mount, a changed
#        directory) read overlapping files and miss others.
#        Fix: sorted(os.listdir(self.root)).
# ----
import os

import torch
import torch.distributed as dist
from PIL import Image
from torch import nn
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
from torchvision import transforms


class FolderImages(Dataset):
    def __init__(self, root: str):
        self.root = root
        self.files = [f for f in os.listdir(self.root) if f.endswith((".jpg", ".png"))]
        self.tf = transforms.Compose([transforms.Resize(160), transforms.CenterCrop(128), transforms.ToTensor()])

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        name = self.files[i]
        label = int(name.split("_")[0])
        return self.tf(Image.open(os.path.join(self.root, name)).convert("RGB")), label


def main(root: str = "/mnt/dataset/train", epochs: int = 10) -> None:
    dist.init_process_group("nccl")
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    data = FolderImages(root)
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler, num_workers=6)
    model = nn.parallel.DistributedDataParallel(
        nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 5)).cuda(),
        device_ids=[local],
    )
    opt = torch.optim.Adam(model.parameters(), lr=3e-4)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
