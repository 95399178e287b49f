# stagec fixture: s25 pos_accelerate_partial_state_ranks (issue 22, class 9; review 34a's MOTIP:
#                 the script learns its rank from Accelerate's `PartialState`, which only an
#                 `accelerate launch` of several processes gives more than one; the loader's
#                 four workers restart at every epoch on each of them)
# named: on the command line (`accelerate launch --num_processes 8 train.py`)
# expect:
#   T105 at 18:60 four workers per process, started again at every epoch.
# ----
import torch
from accelerate import PartialState
from torch.utils.data import DataLoader, Subset, TensorDataset


def main():
    state = PartialState()
    data = TensorDataset(torch.randn(512, 8))
    part = Subset(data, range(state.process_index, len(data), state.num_processes))
    loader = DataLoader(part, batch_size=16, shuffle=True, num_workers=4)
    model = torch.nn.Linear(8, 8).to(state.device)
    for epoch in range(20):
        for (x,) in loader:
            model(x.to(state.device)).mean().backward()


if __name__ == "__main__":
    main()
