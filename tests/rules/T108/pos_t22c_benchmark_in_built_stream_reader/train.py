# stagec fixture: t22c_pos_benchmark_in_built_stream_reader
# named: on the command line
# context: no experiment config; the training script asks for deterministic algorithms. The same
#          module holds a camera-stream reader for live inference whose constructor turns cuDNN
#          benchmarking on; the training loop constructs it to draw its inputs.
# expect:
#   T108 at 17:9 benchmarking turned on by the reader the training loop builds, while the script
#        requires deterministic algorithms.
# ----
import torch
import torch.distributed as dist
from torch import nn


class CameraStream:
    def __init__(self, source: str, size: int = 640):
        torch.backends.cudnn.benchmark = True
        self.source = source
        self.size = size

    def __iter__(self):
        while True:
            yield torch.zeros(1, 3, self.size, self.size)


def train(steps: int = 100) -> None:
    dist.init_process_group("nccl")
    torch.use_deterministic_algorithms(True)
    model = nn.parallel.DistributedDataParallel(nn.Conv2d(3, 8, 3).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    frames = iter(CameraStream("rtsp://camera/0", 64))
    for _ in range(steps):
        opt.zero_grad()
        model(next(frames).cuda()).mean().backward()
        opt.step()


if __name__ == "__main__":
    train()
