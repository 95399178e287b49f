# expect:
#   T105 at 29:9 the training loader's 2 workers (--reader_workers' default) restart at
#        every epoch on every rank.
#   T105 at 38:66 the test loader's 2 workers restart at every evaluation on rank 0, while
#        the other ranks wait.
# ----
import torch
from torch.utils.data import DataLoader, Dataset


class Clips(Dataset):
    def __init__(self, path, max_frames):
        self.items = open(path).read().splitlines()
        self.max_frames = max_frames

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.zeros(self.max_frames, 8)


def clips_train(args, tokenizer):
    dataset = Clips(args.train_csv, args.max_frames)
    sampler = torch.utils.data.distributed.DistributedSampler(dataset)
    loader = DataLoader(
        dataset,
        batch_size=args.batch_size,
        num_workers=args.reader_workers,
        sampler=sampler,
        drop_last=True,
    )
    return loader, len(dataset), sampler


def clips_test(args, tokenizer, subset="test"):
    dataset = Clips(args.val_csv, args.max_frames)
    loader = DataLoader(dataset, batch_size=args.batch_size_val, num_workers=args.reader_workers, shuffle=False)
    return loader, len(dataset)


LOADERS = {}
LOADERS["clips"] = {"train": clips_train, "val": clips_test, "test": clips_test}
