import torch
import torch.nn as nn
from determined.hpp import stage_decorator


@stage_decorator(stage_id=0, device="h100", dtype=torch.bfloat16)
class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 16)


@stage_decorator(stage_id=1, device="h100", dtype=torch.float32)
class Body(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(16, 16)


@stage_decorator(stage_id=2, device="h100", dtype=torch.float32)
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 2)
