# stagec fixture: pos_ddp_forward_reached_through_model_class (issue 22, class 2; an image-restoration
#   trainer's model class: the DDP forward sits in a helper every rank's training step runs, and the
#   test pass that reaches it runs on rank 0 only)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group; the model class wraps a network with BatchNorm in DDP)
# expect:
#   T104 at 29:17 `model.test()` runs only on rank 0 and reaches `self.net(self.low)`, a DDP forward
#        that broadcasts buffers first: rank 0 waits for the other ranks there
# ----
import torch
import torch.distributed as dist

from models.restorer import RestorerModel


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    opt = {"dist": True}
    model = RestorerModel(opt)
    data = [{"low": torch.randn(4, 3, 32, 32), "high": torch.randn(4, 3, 32, 32)} for _ in range(8)]
    for step, batch in enumerate(data):
        model.feed(batch)
        model.optimize()
        if step % 4 == 0 and rank == 0:
            psnr = 0.0
            for test_batch in data[:2]:
                model.feed(test_batch)
                model.test()
                psnr += float((model.out - model.high).square().mean())
            print(psnr)


if __name__ == "__main__":
    main()
