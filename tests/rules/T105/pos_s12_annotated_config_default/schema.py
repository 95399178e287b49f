from dataclasses import dataclass


@dataclass
class TrainArgs:
    batch_size: int = 4
    epochs: int = 10
    num_workers: int = 8
