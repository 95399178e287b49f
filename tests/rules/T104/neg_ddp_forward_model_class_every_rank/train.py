# stagec fixture: neg_ddp_forward_model_class_every_rank (issue 22, class 2; an image-restoration
#   trainer's model class whose test pass runs on every rank: each joins the buffer broadcast;
#   only the printing is left to rank 0)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group; the model class wraps a network with BatchNorm in DDP)
# expect: none
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
        if step % 4 == 0:
            psnr = 0.0
            for test_batch in data[:2]:
                model.feed(test_batch)
                model.test()
                psnr += float((model.out - model.high).square().mean())
            if rank == 0:
                print(psnr)


if __name__ == "__main__":
    main()
