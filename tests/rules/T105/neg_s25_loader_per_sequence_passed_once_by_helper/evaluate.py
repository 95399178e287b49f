# stagec fixture: s25 neg_loader_per_sequence_passed_once_by_helper (issue 22, class 9; review
#                 34a's MOTIP: the evaluation run after each epoch makes a loader for each
#                 sequence inside its loop over sequences and hands it to a helper that passes
#                 over it once: one pass per loader made, which persistent_workers cannot
#                 shorten)
# named: on the command line (`accelerate launch evaluate.py`)
# expect: nothing
# ----
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset


class SeqDataset(Dataset):
    def __init__(self, frames):
        self.frames = frames

    def __len__(self):
        return len(self.frames)

    def __getitem__(self, i):
        return torch.load(self.frames[i])


def results_of_one_sequence(model, sequence_loader):
    out = []
    for t, frame in enumerate(sequence_loader):
        out.append(model(frame))
    return out


def submit_and_evaluate(state, model, sequences):
    names = sorted(sequences)[state.process_index :: state.num_processes]
    for name in names:
        sequence_loader = DataLoader(SeqDataset(sequences[name]), batch_size=1, shuffle=False, num_workers=4)
        results_of_one_sequence(model, sequence_loader)


def main():
    state = Accelerator()
    model = torch.nn.Identity()
    sequences = {f"seq{i}": [f"seq{i}/{j}.pt" for j in range(100)] for i in range(16)}
    for epoch in range(10):
        submit_and_evaluate(state, model, sequences)


if __name__ == "__main__":
    main()
