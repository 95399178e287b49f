import torch
import torch.nn as nn
from determined.hpp import stage_decorator


@stage_decorator(stage_id=0, device="a100", dtype=torch.float16)
class VisionEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 3)
        self.bn1 = nn.BatchNorm2d(64)


@stage_decorator(stage_id=1, device="h100", dtype=torch.float8_e4m3fn)
class TransformerBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = MultiHeadAttention()
        self.ffn = FeedForward()


# 主模型组装
class HybridModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = VisionEncoder()  # 自动绑定stage 0
        self.transformer = TransformerBlock()  # 自动绑定stage 1
        self.classifier = nn.Linear(768, 1000)  # 默认stage 2
