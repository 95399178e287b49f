import torch
from torch.utils.data import DataLoader, Dataset


class FaceMaskDataset(Dataset):
    def __init__(self, img_size):
        self.img_size = img_size

    def __len__(self):
        return 100

    def __getitem__(self, i):
        return {"img": torch.zeros(3, *self.img_size)}


if __name__ == "__main__":
    data = FaceMaskDataset(img_size=(512, 512))
    train_dataloader = DataLoader(data, batch_size=4, shuffle=True)
    for epoch in range(2):
        for step, batch in enumerate(train_dataloader):
            print(batch["img"].shape)
