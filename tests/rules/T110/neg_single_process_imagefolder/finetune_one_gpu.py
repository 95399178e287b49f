# stagec fixture: h06_neg_single_process_imagefolder
# context: const.yaml entrypoint "python3 finetune_one_gpu.py", resources.slots_per_trial: 1
# runtime: single process (Core API, no launcher)
# expect: no finding.
#   - torchvision's ImageFolder sorts class folders and files itself.
#   - the unsorted os.listdir() of extra images runs in a single process: there is no other
#     rank to disagree with (run-to-run reproducibility is not this rule's concern).
# ----
import os

import torch
from PIL import Image
from torch import nn
from torch.utils.data import ConcatDataset, DataLoader, Dataset
from torchvision import datasets, transforms

import determined as det

TF = transforms.Compose([transforms.Resize(96), transforms.CenterCrop(96), transforms.ToTensor()])


class Extra(Dataset):
    def __init__(self, root: str):
        self.paths = [os.path.join(root, f) for f in os.listdir(root)]

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return TF(Image.open(self.paths[i]).convert("RGB")), 0


def main(core: det.core.Context) -> None:
    data = ConcatDataset([datasets.ImageFolder("/data/train", transform=TF), Extra("/data/extra")])
    loader = DataLoader(data, batch_size=64, shuffle=True, num_workers=4)
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 96 * 96, 10)).cuda()
    opt = torch.optim.Adam(model.parameters())
    for epoch in range(3):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        core.train.report_training_metrics(steps_completed=epoch + 1, metrics={"loss": loss.item()})


if __name__ == "__main__":
    with det.core.init() as ctx:
        main(ctx)
